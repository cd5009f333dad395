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

// ---- best: register blocks with shared-memory transposes ------------------------------------
//
// Beyond the lecture. A block holds E = 2^LOG_E elements, 16 in each thread's registers. The
// block's elements have logical indices l in [0, E); a *layout* says which 4 bits of l are the
// register index (s[0] < s[1] < s[2] < s[3]) and puts the thread index in the other bits, in
// order. A step on bit b compares l with l ^ 2^b: inside a thread's registers when b is one of
// the layout's bits, so a block runs up to 4 steps between two exchanges; between groups of 4
// steps the block rewrites its elements through shared memory into the next layout (a
// transpose). Three kinds of pass:
//   SORT    a chunk of E consecutive elements, every merge k = 2..E (the first pass);
//   FINISH  a chunk of E consecutive elements, the steps j = E/2..1 of a merge k > E;
//   STRIDED the steps of a merge k > E whose j >= E: logical bits 0..C-1 are global bits
//           0..C-1 (C words make 128 bytes, so loads stay coalesced) and logical bits C..E-1
//           are global bits g..g+E-C-1, so up to LOG_E - C steps run in one pass.
// The layouts are fixed at compile time, so every register index is a constant.

constexpr int kLogR = 4, kR = 1 << kLogR;  // elements a thread holds
enum PassMode { SORT, FINISH, STRIDED };

// A layout, packed: bit positions s[0..3] in bytes 0..3 (ascending).
__host__ __device__ constexpr int layout_of(int s0, int s1, int s2, int s3) { return s0 | s1 << 8 | s2 << 16 | s3 << 24; }
__host__ __device__ constexpr int bit_at(int layout, int q) { return (layout >> (8 * q)) & 0xff; }
__host__ __device__ constexpr bool holds(int layout, int b) {
    return bit_at(layout, 0) == b || bit_at(layout, 1) == b || bit_at(layout, 2) == b || bit_at(layout, 3) == b;
}
// The top layout: register bits E-4..E-1, threads on bits 0..E-5 (consecutive threads read
// consecutive words).
__host__ __device__ constexpr int top_layout(int e) { return layout_of(e - 4, e - 3, e - 2, e - 1); }

struct Phase {
    int layout;     // the layout this phase runs in
    int q_hi, q_lo; // steps on register bits q_hi, q_hi-1, ..., q_lo (descending j)
    int m;          // SORT: the merge (k = 2^m); else unused
};
struct PassPlan {
    int first;      // the layout the pass loads in
    int count;
    Phase p[40];
};

// The layout for steps on bits top, top-1, ..., top-n+1: the current one if it holds them all;
// else those bits plus fillers: the highest bits when `fill_top` (the pass's last layout, so
// stores stay coalesced), otherwise the bits just above the group, then just below, never
// under `lowest`.
__host__ __device__ constexpr Phase choose(int top, int n, int cur, int lowest, int e, bool fill_top, int m) {
    bool all = true;
    for (int b = top - n + 1; b <= top; ++b) all = all && holds(cur, b);
    int s[4] = {0, 0, 0, 0};
    int layout = cur;
    if (!all) {
        int c = 0;
        for (int b = top - n + 1; b <= top; ++b) s[c++] = b;
        if (fill_top) {
            for (int b = e - 1; c < 4; --b)
                if (b > top || b < top - n + 1) s[c++] = b;
        } else {
            for (int b = top + 1; c < 4 && b < e; ++b) s[c++] = b;
            for (int b = top - n; c < 4 && b >= lowest; --b) s[c++] = b;
        }
        for (int i = 0; i < 4; ++i)  // sort ascending
            for (int j = i + 1; j < 4; ++j)
                if (s[j] < s[i]) {
                    const int t = s[i];
                    s[i] = s[j];
                    s[j] = t;
                }
        layout = layout_of(s[0], s[1], s[2], s[3]);
    }
    int q_hi = 0, q_lo = 0;
    for (int q = 0; q < 4; ++q) {
        if (bit_at(layout, q) == top) q_hi = q;
        if (bit_at(layout, q) == top - n + 1) q_lo = q;
    }
    return Phase{layout, q_hi, q_lo, m};
}

// The phases of a pass. c: the coalescing bits (STRIDED); groups: STRIDED's groups of 4 steps.
__host__ __device__ constexpr PassPlan make_pass(int e, int mode, int c, int groups) {
    PassPlan plan{top_layout(e), 0, {}};
    int cur = plan.first;
    // (merge, top bit, steps) of every group, top-down
    int gm[40] = {}, gtop[40] = {}, gn[40] = {}, count = 0;
    if (mode == SORT) {
        for (int m = 1; m <= e; ++m)
            for (int b = m - 1; b >= 0; b -= 4) gm[count] = m, gtop[count] = b, gn[count++] = b + 1 < 4 ? b + 1 : 4;
    } else if (mode == FINISH) {
        for (int b = e - 1; b >= 0; b -= 4) gtop[count] = b, gn[count++] = b + 1 < 4 ? b + 1 : 4;
    } else {
        const int G = e - c;
        for (int i = 0; i < groups; ++i) {
            const int left = G - 4 * i;
            gtop[count] = e - 1 - 4 * i, gn[count++] = left < 4 ? left : 4;
        }
    }
    for (int i = 0; i < count; ++i) {
        const bool last = i == count - 1 && mode != STRIDED;
        plan.p[i] = choose(gtop[i], gn[i], cur, mode == STRIDED ? c : 0, e, last, gm[i]);
        cur = plan.p[i].layout;
    }
    plan.count = count;
    return plan;
}

// The logical index of thread t's register 0 in layout L: t's bits with a zero inserted at each
// of the layout's bits.
template <int L>
__device__ __forceinline__ uint32_t spread(uint32_t t) {
#pragma unroll
    for (int q = 0; q < 4; ++q) {
        const int b = bit_at(L, q);
        t = ((t >> b) << (b + 1)) | (t & ((1u << b) - 1));
    }
    return t;
}
// The logical offset of register r in layout L.
__host__ __device__ constexpr uint32_t reg_offset(int L, int r) {
    return uint32_t((r & 1) << bit_at(L, 0) | (r >> 1 & 1) << bit_at(L, 1) | (r >> 2 & 1) << bit_at(L, 2) |
                    (r >> 3 & 1) << bit_at(L, 3));
}
// Shared-memory slot of logical index l: one word of padding after every 16 (8-byte words) or 32,
// so that no layout's transpose makes two threads of a half-warp hit one bank (u32: at most
// two). Additive over disjoint bits, slot(a | b) = slot(a) + slot(b), so each register's slot
// is the thread's slot plus a constant: an immediate offset, no instruction.
template <typename T>
__host__ __device__ constexpr uint32_t slot(uint32_t l) {
    return sizeof(T) == 8 ? l + (l >> 4) : l + (l >> 5);
}
template <typename T>
constexpr int shared_words(int log_e) { return (1 << log_e) + (1 << log_e) / (sizeof(T) == 8 ? 16 : 32); }

struct BlockPass {
    int log_k;        // FINISH and STRIDED: the merge (k = 2^log_k)
    int g;            // STRIDED: the global bit of logical bit C
    int steps;        // STRIDED: steps in this pass (on logical bits E-1 .. E-steps)
    bool load_input;  // pack the caller's keys instead of reading the work array
    bool store_output;  // unpack to the caller's output instead of writing the work array
};

template <typename T, int LOG_E, int MODE, int GROUPS>
struct BlockSort {
    static constexpr int C = sizeof(T) == 8 ? 4 : 5;  // 16 or 32 consecutive words: 128 bytes
    static constexpr PassPlan P = make_pass(LOG_E, MODE, C, GROUPS);

    T *work, *shared;  // work: at the block's logical index 0
    const Io &io;
    const BlockPass &bp;
    T x[kR];
    int64_t gbase;  // global index of logical index 0
    int g;          // STRIDED: global bit of logical bit C
    // SORT and FINISH (a block lies inside one array): the array, and the index in it of
    // logical index 0
    Io::Array arr;
    uint32_t first;

    __device__ BlockSort(T *w, T *s, const Io &i, const BlockPass &p) : shared(s), io(i), bp(p) {
        const int64_t blk = blockIdx.x;
        if constexpr (MODE == STRIDED) {
            g = bp.g;
            // block bits: global bits C..g-1, then those above the window
            const int mid = g - C;
            gbase = ((blk >> mid) << (g + LOG_E - C)) | ((blk & ((int64_t(1) << mid) - 1)) << C);
        } else {
            g = C;
            gbase = blk << LOG_E;
            arr = io.array(gbase >> io.log_padded);
            first = uint32_t(gbase & (io.padded - 1));
        }
        work = w + gbase;
    }
    // Offset from work of logical index l (below 2^32: a STRIDED window lies inside one array).
    __device__ __forceinline__ uint32_t offset(uint32_t l) const {
        if constexpr (MODE != STRIDED) return l;
        return (l & ((1u << C) - 1)) | ((l >> C) << g);
    }

    template <int L>
    __device__ __forceinline__ void load() {
        const uint32_t l0 = spread<L>(threadIdx.x);
#pragma unroll
        for (int r = 0; r < kR; ++r) {
            const uint32_t l = l0 | reg_offset(L, r);
            if constexpr (MODE == SORT) x[r] = pack<T>(io, arr, first + l);  // the first pass packs the caller's keys
            else
                x[r] = work[offset(l)];
        }
    }
    template <int L>
    __device__ __forceinline__ void store() {
        const uint32_t l0 = spread<L>(threadIdx.x);
        const bool out = MODE != STRIDED && bp.store_output;  // the last pass unpacks to the caller's output
#pragma unroll
        for (int r = 0; r < kR; ++r) {
            const uint32_t l = l0 | reg_offset(L, r);
            if (out) unpack<T>(io, arr, first + l, x[r]);
            else work[offset(l)] = x[r];
        }
    }
    // Rewrites the block's elements from layout FROM to layout TO through shared memory.
    template <int FROM, int TO, bool WAIT>
    __device__ __forceinline__ void transpose() {
        if (WAIT) __syncthreads();  // every thread has read the previous transpose
        T *a = shared + slot<T>(spread<FROM>(threadIdx.x));
#pragma unroll
        for (int r = 0; r < kR; ++r) a[slot<T>(reg_offset(FROM, r))] = x[r];
        __syncthreads();
        const T *b = shared + slot<T>(spread<TO>(threadIdx.x));
#pragma unroll
        for (int r = 0; r < kR; ++r) x[r] = b[slot<T>(reg_offset(TO, r))];
    }

    // The step on register bit Q of layout L; bit r of `down` set: pair (r, r + 2^Q) sorts
    // descending.
    template <int L, int Q>
    __device__ __forceinline__ void step(uint32_t down) {
        if (MODE == STRIDED && bit_at(L, Q) < LOG_E - bp.steps) return;  // not this pass's step
#pragma unroll
        for (int r = 0; r < kR; ++r) {
            if (r & (1 << Q)) continue;
            T &a = x[r], &b = x[r | (1 << Q)];
            // one compare, then four selects (u64); outside SORT the direction is the block's
            const bool swap = (b < a) != bool(MODE == SORT ? (down >> r) & 1 : down & 1);
            const T na = swap ? b : a, nb = swap ? a : b;
            a = na;
            b = nb;
        }
    }

    template <int I>
    __device__ __forceinline__ void phases(uint32_t block_down) {
        if constexpr (I < P.count) {
            constexpr Phase ph = P.p[I];
            constexpr int prev = I == 0 ? P.first : P.p[I - 1].layout, L = ph.layout;
            if constexpr (prev != L) transpose<prev, L, have_transposed(I)>();
            uint32_t down = block_down;
            // SORT: merge 2^m sorts down where bit m of the global index is set: bit m of l
            // while m < E (a register bit or a thread bit), the block's bit when m == E
            if constexpr (MODE == SORT && ph.m < LOG_E) {
                if constexpr (holds(L, ph.m)) down = pattern(L, ph.m);
                else down = (spread<L>(threadIdx.x) >> ph.m & 1) ? 0xFFFFu : 0u;
            }
            if constexpr (ph.q_hi >= 3 && ph.q_lo <= 3) step<L, 3>(down);
            if constexpr (ph.q_hi >= 2 && ph.q_lo <= 2) step<L, 2>(down);
            if constexpr (ph.q_hi >= 1 && ph.q_lo <= 1) step<L, 1>(down);
            if constexpr (ph.q_lo <= 0) step<L, 0>(down);
            phases<I + 1>(block_down);
        }
    }
    // The registers whose bit q (where layout L holds bit m) is set.
    __host__ __device__ static constexpr uint32_t pattern(int L, int m) {
        const uint32_t by_q[4] = {0xAAAAu, 0xCCCCu, 0xF0F0u, 0xFF00u};
        for (int q = 0; q < 4; ++q)
            if (bit_at(L, q) == m) return by_q[q];
        return 0;
    }
    // Whether a phase before I changed layout (then a transpose must wait for its readers).
    __host__ __device__ static constexpr bool have_transposed(int I) {
        int cur = P.first;
        for (int i = 0; i < I; ++i) {
            if (P.p[i].layout != cur) return true;
            cur = P.p[i].layout;
        }
        return false;
    }

    __device__ __forceinline__ void run() {
        load<P.first>();
        // FINISH and STRIDED: bit log_k of the index is one of the block's bits; SORT: bit E
        const int log_k = MODE == SORT ? LOG_E : bp.log_k;
        const uint32_t block_down = ((gbase & (io.padded - 1)) >> log_k & 1) ? 0xFFFFu : 0u;
        phases<0>(block_down);
        store<P.p[P.count - 1].layout>();
    }
};

template <typename T, int LOG_E, int MODE, int GROUPS>
__global__ void __launch_bounds__((1 << LOG_E) / kR, MODE == STRIDED && GROUPS == 1 ? 1 : 2)
    bitonic_block(T *work, Io io, BlockPass bp) {
    extern __shared__ unsigned char shared_bytes[];
    BlockSort<T, LOG_E, MODE, GROUPS>(work, reinterpret_cast<T *>(shared_bytes), io, bp).run();
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
    {"best", "blocks of up to 8192 in registers (16 a thread), 4 steps between shared-memory transposes, up to 9 global steps a pass",
     "any n and batch", "2 * words * passes", TC_OUT_ELEMENTS, 0, 3},
    {"cub", "baseline: cub::DeviceRadixSort (one array) or cub::DeviceSegmentedSort (batches)", "any n and batch",
     "-", TC_OUT_ELEMENTS, 0, 0},
};

// best's block: E = 16 x threads elements (1024..8192), no more than one array, and shrunk
// (down to 1024) until the grid has 128 blocks to fill the device. Arrays shorter than 1024
// are sorted whole by one block of bitonic_shared each.
constexpr int kMinBlockLog = 10, kMaxBlockLog = 13;
int block_log(const tc_plan &p) {
    int e = tc::ceil_log2(int64_t(p.threads) * kR);
    e = e < kMinBlockLog ? kMinBlockLog : e > kMaxBlockLog ? kMaxBlockLog : e;
    const int lp = tc::ceil_log2(p.padded);
    if (e > lp) e = lp;
    while (e > kMinBlockLog && ((p.padded * p.batch) >> e) < 128) --e;
    return e;
}
bool small_arrays(const tc_plan &p) { return p.padded < (int64_t(1) << kMinBlockLog); }
// The passes after SORT: blocks of 8192 wherever they still fill the device (a smaller SORT
// block is then followed by FINISH passes for the merges up to 8192, with no STRIDED pass).
int rest_log(const tc_plan &p) {
    const int lp = tc::ceil_log2(p.padded);
    return lp >= kMaxBlockLog && ((p.padded * p.batch) >> kMaxBlockLog) >= 128 ? kMaxBlockLog : block_log(p);
}
// best's steps in one STRIDED pass: the block's bits less the 16 or 32 consecutive words
int strided_steps(const tc_plan &p) { return rest_log(p) - (p.pairs ? 4 : 5); }

// The shared-memory chunk of n and nl: two elements a thread; best's small arrays: one array.
int chunk_of(const tc_plan &p) {
    const int64_t want = p.variant == VBEST ? p.padded : 2 * p.threads;
    return int(want < p.padded ? want : p.padded);
}

// Every launch of a sort goes through SORTER_LAUNCH: counted, and made unless the sorter only
// counts (the plan's launch count comes from the same code as the run).
#define SORTER_LAUNCH(...)       \
    do {                         \
        ++launches;              \
        if (!count_only) {       \
            __VA_ARGS__;         \
            TC_LAUNCHED();       \
        }                        \
    } while (0)

template <typename T>
struct Sorter {
    const tc_plan &p;
    T *work;
    int64_t total;
    cudaStream_t s;
    Io io;
    bool count_only = false;
    int launches = 0;

    unsigned grid(int64_t items, int threads) const { return unsigned(tc::ceil_div(items, threads)); }

    tc_status run() {
        if (p.variant == VBEST && !small_arrays(p)) return best();
        const int v = p.variant, t = p.threads, chunk = chunk_of(p);
        const int64_t N = p.padded;
        const bool fused = v == VBEST;  // small arrays: one block sorts each, reading and writing the caller's data
        if (!fused) SORTER_LAUNCH(pack_kernel<T><<<grid(total, 256), 256, 0, s>>>(io, work, total));
        if (v == VO || v == VOV) {
            for (int64_t k = 2; k <= N; k *= 2)
                for (int64_t j = k / 2; j > 0; j /= 2) {
                    if (v == VO) SORTER_LAUNCH(bitonic_o<T><<<grid(total, t), t, 0, s>>>(work, total, N, j, k));
                    else SORTER_LAUNCH(bitonic_ov<T><<<grid(total / 2, t), t, 0, s>>>(work, total, N, j, k));
                }
        } else {
            const bool shared = v != VN;
            const int want = v == VBEST ? 1024 : t;
            const int block = chunk / 2 < 1 ? 1 : chunk / 2 < want ? chunk / 2 : want;
            const size_t smem = shared ? sizeof(T) * size_t(chunk) : 0;
            const unsigned blocks = unsigned(total / chunk);
            // start: every k up to the chunk
            if (shared) SORTER_LAUNCH(bitonic_shared<T><<<blocks, block, smem, s>>>(work, chunk, N, 2, chunk, io, fused, fused));
            else SORTER_LAUNCH(bitonic_n_start<T><<<blocks, block, 0, s>>>(work, chunk, N));
            if (fused) return TC_OK;
            for (int64_t k = 2 * int64_t(chunk); k <= N; k *= 2) {
                for (int64_t j = k / 2; j >= chunk; j /= 2)
                    SORTER_LAUNCH(bitonic_ov<T><<<grid(total / 2, t), t, 0, s>>>(work, total, N, j, k));
                if (shared) SORTER_LAUNCH(bitonic_shared<T><<<blocks, block, smem, s>>>(work, chunk, N, k, k, io, false, false));
                else SORTER_LAUNCH(bitonic_n_finish<T><<<blocks, block, 0, s>>>(work, chunk, N, k));
            }
        }
        SORTER_LAUNCH(unpack_kernel<T><<<grid(total, 256), 256, 0, s>>>(io, work, total));
        return TC_OK;
    }

    // best: one SORT pass over blocks of E, then for every merge k > E its STRIDED passes (up to
    // E - C steps each, E here the later passes' block) and one FINISH pass. The first pass
    // reads the caller's keys, the last writes the caller's output.
    tc_status best() {
        const int first = block_log(p), e = rest_log(p), G = strided_steps(p), L = tc::ceil_log2(p.padded);
        TC_TRY((launch<SORT, 1>(first, BlockPass{0, 0, 0, true, first == L})));
        for (int m = first + 1; m <= L; ++m) {
            for (int h = m - 1; h >= e; h -= G) {
                const int steps = h - e + 1 < G ? h - e + 1 : G;
                const BlockPass bp{m, h - G + 1, steps, false, false};
                switch ((steps + 3) / 4) {
                case 1: TC_TRY((launch<STRIDED, 1>(e, bp))); break;
                case 2: TC_TRY((launch<STRIDED, 2>(e, bp))); break;
                default: TC_TRY((launch<STRIDED, 3>(e, bp))); break;
                }
            }
            // a merge up to the later passes' block (after a smaller SORT block) is one FINISH
            // over blocks of exactly its length
            TC_TRY((launch<FINISH, 1>(m < e ? m : e, BlockPass{m, 0, 0, false, m == L})));
        }
        return TC_OK;
    }

    template <int MODE, int GROUPS>
    cudaError_t launch(int e, const BlockPass &bp) {
        ++launches;
        if (count_only) return cudaSuccess;
        switch (e) {
        case 10: return launch_e<10, MODE, GROUPS>(bp);
        case 11: return launch_e<11, MODE, GROUPS>(bp);
        case 12: return launch_e<12, MODE, GROUPS>(bp);
        default: return launch_e<13, MODE, GROUPS>(bp);
        }
    }

    template <int LOG_E, int MODE, int GROUPS>
    cudaError_t launch_e(const BlockPass &bp) {
        constexpr int C = sizeof(T) == 8 ? 4 : 5;
        if constexpr (MODE == STRIDED && 4 * (GROUPS - 1) >= LOG_E - C) {
            return cudaErrorInvalidValue;  // more groups than steps: never planned
        } else {
            const auto kernel = bitonic_block<T, LOG_E, MODE, GROUPS>;
            // (a STRIDED pass of one group never transposes)
            const int smem = MODE == STRIDED && GROUPS == 1 ? 0 : int(sizeof(T)) * shared_words<T>(LOG_E);
            static const cudaError_t allowed =  // above 48 KB a kernel must ask for its shared memory
                cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
            if (allowed != cudaSuccess) return allowed;
            kernel<<<unsigned(total >> LOG_E), (1 << LOG_E) / kR, smem, s>>>(work, io, bp);
            return cudaGetLastError();
        }
    }
};

// The number of launches a sort makes, for the plan: the run's own loops, counting only.
int count_launches(const tc_plan &p) {
    const int64_t total = p.padded * p.batch;
    if (p.pairs) {
        Sorter<uint64_t> sorter{p, nullptr, total, nullptr, Io{}, true};
        sorter.run();
        return sorter.launches;
    }
    Sorter<uint32_t> sorter{p, nullptr, total, nullptr, Io{}, true};
    sorter.run();
    return sorter.launches;
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
        if (k == 0) { *name = "bitonic_block<u64,8192,sort>"; return reinterpret_cast<const void *>(bitonic_block<uint64_t, 13, SORT, 1>); }
        if (k == 1) { *name = "bitonic_block<u64,8192,strided>"; return reinterpret_cast<const void *>(bitonic_block<uint64_t, 13, STRIDED, 3>); }
        if (k == 2) { *name = "bitonic_block<u64,8192,finish>"; return reinterpret_cast<const void *>(bitonic_block<uint64_t, 13, FINISH, 1>); }
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
    if (threads == 0) threads = variant == VBEST ? 512 : 256;
    const tc_status st = tc_plan_launch(TC_UREJANJE, variant, n, threads, 0, device, out);
    if (st != TC_OK) return st;
    out->batch = batch;
    out->pairs = pairs ? 1 : 0;
    out->padded = int64_t(1) << tc::ceil_log2(n);
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
          p->n, p->padded, tc::ceil_log2(p->padded), type, descending != 0};
    const int64_t total = p->padded * p->batch;
    if (p->pairs) return Sorter<uint64_t>{*p, static_cast<uint64_t *>(scratch), total, s, io}.run();
    return Sorter<uint32_t>{*p, static_cast<uint32_t *>(scratch), total, s, io}.run();
}
