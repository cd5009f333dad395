// urejanje best: the sort beyond the lecture, kept apart so that lecture.cuh reads as the lecture.
// Included by plan.cu after the lecture's kernels (it uses their pack/unpack and chunk_step)
// and its Launches, and after radix.cuh (the rank sort uses radix's order words and its Io).
#pragma once

namespace {

// ---- register blocks with shared-memory transposes ------------------------------------------
//
// A block holds E = 2^LOG_E elements, 16 in each thread's registers. The
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

// The logical bit that thread bit i is in layout L: the layout's other bits, ascending.
__host__ __device__ constexpr int thread_bit(int L, int i) {
    for (int b = 0;; ++b)
        if (!holds(L, b) && i-- == 0) return b;
}
// Whether each warp holds the same logical indices in layouts A and B of 2^e elements (thread bits
// 5 and up, the warp's, on the same logical bits): a transpose between them stays inside the warp.
__host__ __device__ constexpr bool warp_local(int A, int B, int e) {
    for (int i = 5; i < e - kLogR; ++i)
        if (thread_bit(A, i) != thread_bit(B, i)) return false;
    return true;
}

static_assert(warp_local(layout_of(0, 1, 2, 3), layout_of(4, 5, 6, 7), 12) &&  // lanes on bits 4..8, warps 9..11
                  !warp_local(top_layout(12), layout_of(0, 1, 2, 3), 12),         // warps on 5..7, then 9..11
              "warp_local: which transposes stay inside a warp");

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
    // Rewrites the block's elements from layout FROM to layout TO through shared memory. A slot is
    // an index's: the thread that stores it here read it in the last transpose (it held the index
    // in FROM), so no barrier comes before the stores; between stores and loads, the warp's own
    // barrier where each warp keeps its indices (warp_local), else the block's.
    template <int FROM, int TO>
    __device__ __forceinline__ void transpose() {
        T *a = shared + slot<T>(spread<FROM>(threadIdx.x));
#pragma unroll
        for (int r = 0; r < kR; ++r) a[slot<T>(reg_offset(FROM, r))] = x[r];
        if constexpr (warp_local(FROM, TO, LOG_E)) __syncwarp();
        else __syncthreads();
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
            if constexpr (prev != L) transpose<prev, L>();
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

// Arrays shorter than 1024: one block sorts each whole array in shared memory, reading the
// caller's keys and writing the caller's output (no pack or unpack pass).
template <typename T>
__global__ void bitonic_best_small(Io io) {
    extern __shared__ unsigned char shared_bytes[];
    T *s = reinterpret_cast<T *>(shared_bytes);
    const int chunk = int(io.padded);
    const Io::Array a = io.array(blockIdx.x);
    for (int i = threadIdx.x; i < chunk; i += blockDim.x) s[i] = pack<T>(io, a, i);
    __syncthreads();
    for (int k = 2; k <= chunk; k *= 2)
        for (int j = k / 2; j > 0; j /= 2) {
            chunk_step(s, 0, chunk, io.padded, j, k);
            __syncthreads();
        }
    for (int i = threadIdx.x; i < chunk; i += blockDim.x) unpack<T>(io, a, i, s[i]);
}

// ---- planning the passes --------------------------------------------------------------------

// best's block: E = 16 x threads elements (1024..8192), no more than one array, no more words
// than the device's shared memory per block holds. An array that fits one block is sorted in one
// launch; a longer one's block shrinks (down to 1024) until the grid has a block for every SM
// (the SMs rounded down to a power of two). Arrays shorter than 1024 are sorted whole by
// bitonic_best_small.
constexpr int kMinBlockLog = 10, kMaxBlockLog = 13;
template <typename T>
int largest_log(const tc_device &dev) {
    int e = kMaxBlockLog;
    while (e > kMinBlockLog && sizeof(T) * size_t(shared_words<T>(e)) > dev.shared_per_block_optin) --e;
    return e;
}
template <typename T>
int block_log(const tc_urejanje_plan &p, const tc_device &dev) {
    const int top = largest_log<T>(dev);
    int e = tc::ceil_log2(int64_t(p.launch.threads) * kR);
    e = e < kMinBlockLog ? kMinBlockLog : e > top ? top : e;
    const int lp = tc::ceil_log2(p.padded);
    if (e >= lp) return lp;  // the array fits one block: one launch, which beats merges on more SMs
    while (e > kMinBlockLog && ((p.padded * p.batch) >> e) < tc::floor_pow2(dev.multiprocessors)) --e;
    return e;
}
bool small_arrays(const tc_urejanje_plan &p) { return p.padded < (int64_t(1) << kMinBlockLog); }
// The passes after SORT: the largest blocks wherever they still fill the device, else the SORT
// pass's (p.block_log; a smaller SORT block is then followed by FINISH passes for the merges up to
// the later block, with no STRIDED pass).
template <typename T>
int rest_log(const tc_urejanje_plan &p, const tc_device &dev) {
    const int lp = tc::ceil_log2(p.padded), top = largest_log<T>(dev);
    return lp >= top && ((p.padded * p.batch) >> top) >= tc::floor_pow2(dev.multiprocessors) ? top : p.block_log;
}
// best's steps in one STRIDED pass: the block's bits less the 16 or 32 consecutive words
int strided_steps(const tc_urejanje_plan &p) { return p.rest_log - (p.pairs ? 4 : 5); }

// ---- the run --------------------------------------------------------------------------------

template <typename T, int LOG_E, int MODE, int GROUPS>
tc_status best_launch_e(Launches<T> &L, const BlockPass &bp) {
    constexpr int C = sizeof(T) == 8 ? 4 : 5;
    if constexpr (MODE == STRIDED && 4 * (GROUPS - 1) >= LOG_E - C) {
        return TC_BAD_ARGUMENT;  // more groups than steps: never planned
    } else {
        const auto kernel = bitonic_block<T, LOG_E, MODE, GROUPS>;
        // (a STRIDED pass of one group never transposes)
        const int smem = MODE == STRIDED && GROUPS == 1 ? 0 : int(sizeof(T)) * shared_words<T>(LOG_E);
        const unsigned blocks = unsigned(L.total >> LOG_E);
        const double moved = (bp.load_input ? L.keys_in() : L.words()) + (bp.store_output ? L.result_out() : L.words());
        L.takes_shared(size_t(smem));
        if (!L.next(blocks, (1 << LOG_E) / kR, moved)) return TC_OK;
        static const cudaError_t allowed =  // above 48 KB a kernel must ask for its shared memory
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
        TC_TRY(allowed);
        kernel<<<blocks, (1 << LOG_E) / kR, smem, L.s>>>(L.work, L.io, bp);
        TC_LAUNCHED();
        return TC_OK;
    }
}

template <int MODE, int GROUPS, typename T>
tc_status best_launch(Launches<T> &L, int e, const BlockPass &bp) {
    switch (e) {
    case 10: return best_launch_e<T, 10, MODE, GROUPS>(L, bp);
    case 11: return best_launch_e<T, 11, MODE, GROUPS>(L, bp);
    case 12: return best_launch_e<T, 12, MODE, GROUPS>(L, bp);
    default: return best_launch_e<T, 13, MODE, GROUPS>(L, bp);
    }
}

// One SORT pass over blocks of E, then for every merge k > E its STRIDED passes (up to E - C
// steps each, E here the later passes' block) and one FINISH pass. The first pass reads the
// caller's keys, the last writes the caller's output.
template <typename T>
tc_status best_run(Launches<T> &L) {
    const tc_urejanje_plan &p = L.p;
    if (small_arrays(p)) {
        const int chunk = int(p.padded), block = chunk / 2 < 1 ? 1 : chunk / 2;
        L.takes_shared(sizeof(T) * size_t(chunk));
        TC_SORT_LAUNCH(L, unsigned(p.batch), block, L.keys_in() + L.result_out(), true,
                       bitonic_best_small<T><<<unsigned(p.batch), block, sizeof(T) * size_t(chunk), L.s>>>(L.io));
        return TC_OK;
    }
    const int first = p.block_log, e = p.rest_log, G = strided_steps(p), lp = tc::ceil_log2(p.padded);
    TC_TRY_STATUS((best_launch<SORT, 1>(L, first, BlockPass{0, 0, 0, true, first == lp})));
    for (int m = first + 1; m <= lp; ++m) {
        for (int h = m - 1; h >= e; h -= G) {
            const int steps = h - e + 1 < G ? h - e + 1 : G;
            const BlockPass bp{m, h - G + 1, steps, false, false};
            switch ((steps + 3) / 4) {
            case 1: TC_TRY_STATUS((best_launch<STRIDED, 1>(L, e, bp))); break;
            case 2: TC_TRY_STATUS((best_launch<STRIDED, 2>(L, e, bp))); break;
            default: TC_TRY_STATUS((best_launch<STRIDED, 3>(L, e, bp))); break;
            }
        }
        // a merge up to the later passes' block (after a smaller SORT block) is one FINISH
        // over blocks of exactly its length
        TC_TRY_STATUS((best_launch<FINISH, 1>(L, m < e ? m : e, BlockPass{m, 0, 0, false, m == lp})));
    }
    return TC_OK;
}

// ---- the rank sort: short arrays, every pair of keys compared ---------------------------------
//
// A key's place in a stable sort is the number of keys before it: the smaller ones, and the equal
// ones earlier in the array. Counting them takes n^2 comparisons, and spread over every SM that
// costs less than the chain of barrier-separated steps a network or a radix sort runs in one
// block, up to the line the plan draws from the SMs (best_takes_rank). One launch: a block owns
// 32 keys, a lane each, and holds the whole array's order words (radix_word: stable, -0.0 equal
// to +0.0) in shared memory; each warp counts over its own segment of the array, the block sums
// the warps' counts, and the first warp writes its keys (and values) to their places.
constexpr int kRankWarps = 8;

// The words of s[0, len) (len a multiple of 4, s 16-byte aligned) that come before a key whose
// order word is w: those <= w where all of them lie earlier in the array (EARLIER), else those < w.
// A compare and a predicated add a word, into four counts (BENCHMARKS: urejanje rank).
template <bool EARLIER>
__device__ __forceinline__ void count_if_before(uint32_t &c, uint32_t x, uint32_t w) {
    if constexpr (EARLIER) asm("{.reg .pred p; setp.le.u32 p, %1, %2; @p add.u32 %0, %0, 1;}" : "+r"(c) : "r"(x), "r"(w));
    else asm("{.reg .pred p; setp.lt.u32 p, %1, %2; @p add.u32 %0, %0, 1;}" : "+r"(c) : "r"(x), "r"(w));
}
template <bool EARLIER>
__device__ __forceinline__ uint32_t count_before(const uint32_t *s, int len, uint32_t w) {
    const uint4 *v = reinterpret_cast<const uint4 *>(s);
    uint32_t c[4] = {0, 0, 0, 0};
#pragma unroll 4
    for (int q = 0; q < len / 4; ++q) {
        const uint4 x = v[q];  // (every lane reads the same words: a broadcast)
        count_if_before<EARLIER>(c[0], x.x, w);
        count_if_before<EARLIER>(c[1], x.y, w);
        count_if_before<EARLIER>(c[2], x.z, w);
        count_if_before<EARLIER>(c[3], x.w, w);
    }
    return c[0] + c[1] + c[2] + c[3];
}

// A warp's segment of the array: a multiple of 32 words, so that it holds a block's 32 keys whole
// or none of them. A block's shared memory: kRankWarps segments of words, then each warp's counts.
__host__ __device__ constexpr int64_t rank_segment(int64_t n) { return (n + 32 * kRankWarps - 1) / (32 * kRankWarps) * 32; }
__host__ __device__ constexpr size_t rank_shared_bytes(int64_t n) { return 4 * size_t(kRankWarps * (rank_segment(n) + 32)); }

template <bool PAIRS>
__global__ void __launch_bounds__(32 * kRankWarps) rank_sort(RadixIo io) {
    extern __shared__ uint4 rank_shared[];
    const int n = int(io.n), seg = int(rank_segment(io.n));
    uint32_t *word = reinterpret_cast<uint32_t *>(rank_shared);
    uint32_t(*part)[32] = reinterpret_cast<uint32_t(*)[32]>(word + kRankWarps * seg);
#pragma unroll 8
    for (int j = threadIdx.x; j < kRankWarps * seg; j += blockDim.x)
        word[j] = j < n ? radix_word(io.keys_in[j], io.type, io.descending) : ~0u;  // (the padding is never counted)
    __syncthreads();
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, k0 = blockIdx.x * 32, i = k0 + lane;
    const uint32_t w = word[i];
    // the segment [a, b): words earlier than every key of the block's [a, lo), the block's own
    // [lo, hi) (equal words count where they lie before the lane's), later ones [hi, b)
    const int a = warp * seg, b = a + seg, lo = min(b, max(a, k0)), hi = max(lo, min(b, k0 + 32));
    uint32_t c = count_before<true>(word + a, lo - a, w) + count_before<false>(word + hi, b - hi, w);
    for (int j = lo; j < hi; ++j) c += word[j] < w || (word[j] == w && j < i);
    part[warp][lane] = c;
    __syncthreads();
    if (warp == 0 && i < n) {
        uint32_t place = 0;
#pragma unroll
        for (int q = 0; q < kRankWarps; ++q) place += part[q][lane];
        io.keys_out[place] = radix_key_out(io.keys_in[i], io.type);
        if (PAIRS) io.values_out[place] = io.values_in ? io.values_in[i] : uint32_t(i);
    }
}

// The rank sort's scratch: an output over its input is written there first (every block reads the
// whole array), then copied: the keys, then (pairs) the values, each 256-byte aligned.
inline size_t rank_scratch_values(int64_t n) { return tc::align256(4 * size_t(n)); }
inline size_t rank_scratch_bytes(int64_t n, bool pairs) { return rank_scratch_values(n) * (pairs ? 2 : 1); }

// The rank sort's launch, counted through L (the plan's dry run) or made.
inline tc_status rank_launches(tc::LaunchCounter &L, const tc_urejanje_plan &p, RadixIo io, unsigned char *scratch,
                               cudaStream_t s) {
    const unsigned blocks = unsigned(tc::ceil_div(p.launch.n, 32));
    const size_t smem = rank_shared_bytes(p.launch.n), words = 4 * size_t(p.launch.n);
    uint32_t *keys_out = io.keys_out, *values_out = io.values_out;
    const bool aliased = io.keys_in == io.keys_out || (p.pairs && io.values_in && io.values_in == io.values_out);
    if (aliased && scratch) {
        io.keys_out = reinterpret_cast<uint32_t *>(scratch);
        io.values_out = reinterpret_cast<uint32_t *>(scratch + rank_scratch_values(p.launch.n));
    }
    if (!L.next(blocks)) return TC_OK;
    const auto kernel = p.pairs ? rank_sort<true> : rank_sort<false>;
    if (smem > 48 * 1024)  // (above 48 KiB a kernel must ask for its shared memory)
        TC_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    kernel<<<blocks, 32 * kRankWarps, smem, s>>>(io);
    TC_LAUNCHED();
    if (aliased && scratch) {
        TC_TRY(cudaMemcpyAsync(keys_out, io.keys_out, words, cudaMemcpyDeviceToDevice, s));
        if (p.pairs) TC_TRY(cudaMemcpyAsync(values_out, io.values_out, words, cudaMemcpyDeviceToDevice, s));
    }
    return TC_OK;
}

// Every kernel best can launch for words of type T (the three-group STRIDED pass exists only
// for 8-byte words in blocks of 8192, where a pass holds 9 steps).
#define TC_BEST_E(T, TN, E)                                                                                \
    tc::kernel("bitonic_block<" TN ",2^" #E ",sort>", bitonic_block<T, E, SORT, 1>),                      \
        tc::kernel("bitonic_block<" TN ",2^" #E ",strided,1>", bitonic_block<T, E, STRIDED, 1>),          \
        tc::kernel("bitonic_block<" TN ",2^" #E ",strided,2>", bitonic_block<T, E, STRIDED, 2>),          \
        tc::kernel("bitonic_block<" TN ",2^" #E ",finish>", bitonic_block<T, E, FINISH, 1>)
#define TC_BEST_KERNELS(T, TN)                                                                                  \
    tc::kernel("bitonic_best_small<" TN ">", bitonic_best_small<T>), TC_BEST_E(T, TN, 10), TC_BEST_E(T, TN, 11), \
        TC_BEST_E(T, TN, 12), TC_BEST_E(T, TN, 13)
#define TC_RANK_KERNELS tc::kernel("rank_sort<keys>", rank_sort<false>), tc::kernel("rank_sort<pairs>", rank_sort<true>)

}  // namespace
