// The one-launch reduction engine (redukcija's best, razdalja's best): a grid of at most one
// resident wave reads with 16-byte loads, several in flight a thread; each block reduces with
// tc::block_reduce and publishes its partial, each 32-bit word a status word of tile_state.cuh;
// the grid's last block waits for them (a spin: see tile_state.cuh), reduces the partials in a fixed order
// and moves the epoch on. No atomic
// read-modify-write at all, and no float atomics: the result is the same bits every run, and the
// last block's wait ends as the last partial lands (a ticket would add an atomic's round trip on
// one word behind every block, then a second for the partials). The element map makes
// norms (x^2), dots (x*y) and distances ((x-y)^2) sums of one stream; float32 inputs can
// accumulate in float64, where no square or product of a finite float32 overflows (1e20^2) or
// underflows (1e-41^2). Arg operators carry (value, index) pairs, packed in one 64-bit word where
// every index fits 32 bits (arg_pack).
#pragma once
#include "runtime/common.cuh"
#include "toolbox/primitives.cuh"
#include "toolbox/tile_state.cuh"
#include <cuda/std/type_traits>

namespace tc {

enum Map { IDENTITY, SQUARE, PRODUCT, DIFF_SQUARE };
__host__ __device__ constexpr bool two_inputs(Map map) { return map == PRODUCT || map == DIFF_SQUARE; }
template <Map M>
struct MapTag {
    static constexpr Map value = M;
};

// Element i as an accumulator of type A sees it: x, x^2 (norm), x*y (dot) or (x-y)^2 (distance),
// converted first (so float32 squares, products and differences made in a float64 accumulator are
// exact, the difference's square rounded once); arg operators see (x, i). One mapping for every
// variant: redukcija's lecture Source, best and CUB.
template <typename T, typename A>
struct Element {
    // the map as a template parameter (best: no per-element choice of map)
    template <Map M>
    __host__ __device__ __forceinline__ static A map(T x, T y) {
        const A v = A(x);
        if constexpr (M == DIFF_SQUARE) {
            const A d = v - A(y);
            return d * d;
        } else if constexpr (M == SQUARE) {
            return v * v;
        } else if constexpr (M == PRODUCT) {
            return v * A(y);
        } else {
            return v;
        }
    }
    // the map chosen at run time (the lecture variants and CUB)
    __host__ __device__ __forceinline__ static A at(T x, T y, int64_t, Map m) {
        return m == DIFF_SQUARE ? map<DIFF_SQUARE>(x, y) : m == SQUARE ? map<SQUARE>(x, y)
                                                           : m == PRODUCT ? map<PRODUCT>(x, y) : map<IDENTITY>(x, y);
    }
};
template <typename T>
struct Element<T, tc::KeyValue<T>> {
    __host__ __device__ __forceinline__ static tc::KeyValue<T> at(T x, T, int64_t i, Map) { return {x, i}; }
};

// best's scratch: a 256-byte header (the run's tile::Epoch), then the partials (at most 16 bytes each),
// each 32-bit word of them in a status word (8 bytes); zero-filled once. The kernel takes the
// scratch whole and finds both here.
constexpr size_t kBestHeader = 256;
inline size_t best_scratch(int blocks) { return kBestHeader + align256(size_t(32) * size_t(blocks)); }

constexpr int kBestVectors = 4;  // 16-byte loads a thread, in flight at once
// best's blocks: 512 threads where one block an SM covers n with one round of loads (the latency
// sizes: half the partials for the last block, half the blocks to start), else 256; and 256 where
// one block of 256 covers n in one round (fewer warps to combine; BENCHMARKS: redukcija best).
// -threads picks one of the two.
constexpr int kBestThreads = 256, kBestMaxThreads = 512;
template <typename T>
int best_threads(const tc_device &dev, int64_t n, int asked) {
    if (asked != 0) return asked == kBestThreads || asked == kBestMaxThreads ? asked : 0;  // 0: outside its domain
    const int64_t round = int64_t(kBestVectors) * int64_t(16 / sizeof(T));  // elements a thread loads at once
    if (n <= kBestThreads * round) return kBestThreads;
    return n <= int64_t(dev.multiprocessors) * kBestMaxThreads * round ? kBestMaxThreads : kBestThreads;
}

// argmin (Less) / argmax over elements seen in index order: a later element wins only if it is
// strictly better, or the first NaN (ties and later NaNs keep the earlier).
template <bool Less, typename V>
__device__ __forceinline__ bool later_wins(V x, V best) {
    return (Less ? x < best : x > best) || (x != x && best == best);
}

// A round's winner for argmin (Less) / argmax: the first of its best values, in index order
// (vector k's W elements before vector k+1's), as a position k * W + e and the value there (its
// NaN payload, its zero's sign). The best value is a tree of Min (Max), one instruction a pair
// for float32, and then the first vector holding it and its first element holding it are two
// short chains of selects: about half the instructions of a compare-and-select chain over the
// elements, and a third of its depth. An element holds the best if it equals it or is a NaN: a
// NaN best comes from a NaN, and a best that is a number leaves no NaN in the round.
template <typename T>
struct Winner {
    T value;
    int at;
};
template <typename T>
__device__ __forceinline__ bool holds(T x, T best) {
    return x == best || is_nan(x);
}
template <bool Less, typename T, int K, int W>
__device__ __forceinline__ Winner<T> round_winner(const T (&x)[K][W]) {
    T vector_best[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
        vector_best[k] = x[k][0];
#pragma unroll
        for (int e = 1; e < W; ++e) vector_best[k] = extreme<Less>(vector_best[k], x[k][e]);
    }
    T best = vector_best[0];
#pragma unroll
    for (int k = 1; k < K; ++k) best = extreme<Less>(best, vector_best[k]);
    // the first vector holding it (from the last to the first: the earliest that holds it stays)
    T row[W];
    int k_at = K - 1;
#pragma unroll
    for (int e = 0; e < W; ++e) row[e] = x[K - 1][e];
#pragma unroll
    for (int k = K - 2; k >= 0; --k)
        if (holds(vector_best[k], best)) {
            k_at = k;
#pragma unroll
            for (int e = 0; e < W; ++e) row[e] = x[k][e];
        }
    // and its first element holding it
    Winner<T> w{row[W - 1], k_at * W + W - 1};
#pragma unroll
    for (int e = W - 2; e >= 0; --e)
        if (holds(row[e], best)) w = {row[e], k_at * W + e};
    return w;
}

// An arg operator's running winner in one thread. A thread meets its elements in index order
// (its vectors k = 0..3 at increasing addresses, round after round, then the scalar rest), so
// a candidate replaces the winner by later_wins alone: no pair operator and no index compare an
// element, only a value compare and two selects. index < 0: nothing seen yet.
template <typename T, bool Less>
struct Running {
    T value{};
    int64_t index = -1;
    __device__ __forceinline__ void see(T x, int64_t i) {
        if (index < 0 || later_wins<Less>(x, value)) value = x, index = i;
    }
};

template <typename Op>
constexpr bool kArgOp = cuda::std::is_same<Op, ArgMin>::value || cuda::std::is_same<Op, ArgMax>::value;
// Where the packed words below apply (with n < 2^32): arg operators on 4-byte values.
template <typename T, typename Op>
constexpr bool kPackable = kArgOp<Op> && sizeof(T) == 4;

// Arg operators on 4-byte values where every index fits 32 bits (n < 2^32, so every index is
// below the identity's 0xffffffff): a thread's winner travels as one 64-bit word, arg_key's order
// above the index, so that the smallest word is the winner (the best value, then the lowest
// index), and the blocks reduce the words with Min: a warp step is two of the warp's
// min-reduction instructions (warp_arg_reduce: three, a ballot and a shuffle of the value), a
// partial two words (four): faster at the latency sizes (BENCHMARKS: redukcija best).
// The word gives the value back (arg_key is one-to-one on the numbers other than zero), except a
// zero's sign and a NaN's payload: those are read from the input, at the winner's index.
template <bool Less, typename T>
__host__ __device__ __forceinline__ uint64_t arg_pack(T value, int64_t index) {
    return uint64_t(arg_key<Less>(value)) << 32 | uint32_t(index);
}
template <bool Less, typename T>
__host__ __device__ __forceinline__ KeyValue<T> arg_unpack(uint64_t word, const T *a) {
    const uint32_t key = uint32_t(word >> 32), u = Less ? key : ~key;
    const int64_t index = int64_t(uint32_t(word));
    T value;
    if constexpr (cuda::std::is_floating_point<T>::value) {
        const uint32_t bits = float_from_order(u);
        memcpy(&value, &bits, 4);
        if (key == 0u || value == T(0)) value = a[index];  // a NaN (its payload), a zero (its sign)
    } else {
        value = T(u ^ 0x80000000u);
    }
    return {value, index};
}

// scratch: best_scratch's layout. M: the element map (IDENTITY for min/max/arg operators).
// Narrow: arg operators on 4-byte values with n < 2^32 (arg_pack).
template <typename T, typename A, typename Op, Map M, bool Narrow = false>
__global__ void __launch_bounds__(kBestMaxThreads) reduce_best(const T *a, const T *b, A *result,
                                                               unsigned char *scratch, int64_t n) {
    tile::Epoch *const epoch = reinterpret_cast<tile::Epoch *>(scratch);
    uint64_t *const slots = reinterpret_cast<uint64_t *>(scratch + kBestHeader);  // kWords a block
    constexpr int W = 16 / sizeof(T);  // elements a 16-byte load brings
    struct alignas(16) Vec { T x[W]; };
    constexpr bool kArg = kArgOp<Op>;
    static_assert(!Narrow || kPackable<T, Op>, "Narrow: arg operators on 4-byte values");
    // what the blocks reduce and store: A, or the packed arg word
    using P = cuda::std::conditional_t<Narrow, uint64_t, A>;
    using POp = cuda::std::conditional_t<Narrow, tc::Min, Op>;
    const POp pop{};
    __shared__ tc::BlockReduceStorage<P> storage;
    __shared__ unsigned epoch_shared;
    // thread 0 loads the epoch now and puts it in shared memory only after its own loads have
    // gone out (below): a store to shared memory right here waited for the load, and every block's
    // warp 0 sent its data loads one L2 round trip late
    const unsigned epoch_read = threadIdx.x == 0 ? epoch->read() : 0u;
    const Op op{};
    constexpr bool kLess = cuda::std::is_same<Op, tc::ArgMin>::value;
    constexpr bool kTwo = two_inputs(M);
    // Rounds without a branch between their vectors where each element is a chain (arg, min and
    // max selects; conversions and products), which gained at 10^6; a plain sum's four additions a
    // vector lost that way and keep a branch a vector (BENCHMARKS: redukcija best).
    constexpr bool kInterleave = !(cuda::std::is_same<Op, tc::Sum>::value && M == IDENTITY);
    const int64_t tid = int64_t(blockIdx.x) * blockDim.x + threadIdx.x, threads = int64_t(gridDim.x) * blockDim.x;
    // kBestVectors independent accumulators (independent chains; combined in a fixed order);
    // arg operators: one running winner (see Running)
    A acc[kBestVectors];
#pragma unroll
    for (int k = 0; k < kBestVectors; ++k) acc[k] = tc::identity<A, Op>();
    Running<T, kLess> win;
    int64_t done = 0;
    if (((reinterpret_cast<uintptr_t>(a) | (kTwo ? reinterpret_cast<uintptr_t>(b) : 0)) & 15) == 0) {
        const Vec *va = reinterpret_cast<const Vec *>(a), *vb = reinterpret_cast<const Vec *>(kTwo ? b : a);
        const int64_t vectors = n / W;
        // kBestVectors loads in flight a thread (predicated at the end), consecutive threads on
        // consecutive vectors. Not unrolled: unrolling by two made every thread divide for the
        // trip count and peel an odd round, and at 10^6, where every thread makes one round, the
        // time follows the instruction count (BENCHMARKS.md: redukcija best).
#pragma unroll 1
        for (int64_t v = tid; v < vectors; v += kBestVectors * threads) {
            Vec x[kBestVectors], y[kBestVectors];
            // vector k of the round: its elements into acc[k]
            const auto process = [&](int k) {
                if constexpr (!kArg) {
#pragma unroll
                    for (int e = 0; e < W; ++e)
                        acc[k] = op(acc[k], Element<T, A>::template map<M>(x[k].x[e], kTwo ? y[k].x[e] : T(0)));
                }
            };
            // arg operators: the round's winner into the running one (rounds come in index order)
            const auto see_round = [&]() {
                T values[kBestVectors][W];
#pragma unroll
                for (int k = 0; k < kBestVectors; ++k)
#pragma unroll
                    for (int e = 0; e < W; ++e) values[k][e] = x[k].x[e];
                const Winner<T> w = round_winner<kLess>(values);
                win.see(w.value, (v + (w.at / W) * threads) * W + w.at % W);
            };
            const auto exists = [&](int k) { return v + k * threads < vectors; };
            const auto load = [&](int k) {
                x[k] = va[v + k * threads];
                if constexpr (kTwo) y[k] = vb[v + k * threads];
            };
            if (kInterleave && exists(kBestVectors - 1)) {
                // every vector of the round exists (every round but a grid's last): no branch
                // between the vectors' work, so their chains interleave (a branch a vector kept
                // each operator's chain of selects one vector at a time)
#pragma unroll
                for (int k = 0; k < kBestVectors; ++k) load(k);
                if constexpr (kArg) see_round();
                else {
#pragma unroll
                    for (int k = 0; k < kBestVectors; ++k) process(k);
                }
            } else {
                // arg operators fill the missing vectors (the last ones) with the identity, which
                // never comes before an element that exists: vector 0 always does
#pragma unroll
                for (int k = 0; k < kBestVectors; ++k)
                    if (exists(k)) load(k);
                    else if constexpr (kArg)
#pragma unroll
                        for (int e = 0; e < W; ++e) x[k].x[e] = tc::identity<A, Op>().value;
                if constexpr (kArg) see_round();
                else {
#pragma unroll
                    for (int k = 0; k < kBestVectors; ++k)
                        if (exists(k)) process(k);
                }
            }
        }
        done = vectors * W;
    }
    // The scalar rest: fewer than W elements in all where the inputs are 16-byte aligned (every
    // input the commands make), so at most one round a thread. Not unrolled: unrolled by four, with
    // a 64-bit division for its trip count, it was a third of the kernel's instructions
    // (BENCHMARKS.md: redukcija best). Unaligned views (through the C ABI only) pay with one load
    // in flight a thread.
#pragma unroll 1
    for (int64_t i = done + tid; i < n; i += threads) {
        if constexpr (kArg) win.see(a[i], i);
        else acc[0] = op(acc[0], Element<T, A>::template map<M>(a[i], kTwo ? b[i] : T(0)));
    }
    P mine;
    if constexpr (Narrow) {
        mine = win.index >= 0 ? arg_pack<kLess>(win.value, win.index) : tc::identity<P, POp>();
    } else if constexpr (kArg) {
        mine = win.index >= 0 ? A{win.value, win.index} : acc[0];
    } else {
#pragma unroll
        for (int k = 1; k < kBestVectors; ++k) acc[0] = op(acc[0], acc[k]);
        mine = acc[0];
    }
    // the result as the caller takes it
    const auto result_of = [a](P x) -> A {
        if constexpr (Narrow) return arg_unpack<kLess>(x, a);
        else return x;
    };

    if (threadIdx.x == 0) epoch_shared = epoch_read;
    const P block_total = tc::block_reduce<P, POp>(mine, storage, pop);  // (its barrier: epoch_shared is in)
    // The partial goes out as its 32-bit words, each in one status word (seen whole), so the
    // waiting block's loads of all its words go out at once and each says it is this run's.
    // (Storing a wider partial first and a flag after, with release order, put a second round
    // trip behind the flag: argmin and razdalja at 10^6 got slower than with a ticket.)
    const unsigned epoch_now = epoch_shared;
    // the partials' words; the last block spins (it waits only for blocks that wait for nothing)
    const tile::TileState<tile::Spin> partials{slots, epoch_now};
    constexpr int kWords = int(sizeof(P) / 4);
    static_assert(sizeof(P) % 4 == 0, "a partial is whole 32-bit words");
    const bool last = blockIdx.x == gridDim.x - 1;
    if (threadIdx.x == 0 && !last) {
        uint32_t word[kWords];
        memcpy(word, &block_total, sizeof(P));
#pragma unroll
        for (int q = 0; q < kWords; ++q) partials.publish_inclusive(int64_t(blockIdx.x) * kWords + q, word[q]);
    }
    // The grid's last block (dispatched last) waits for every partial: only it waits, and for
    // blocks that wait for nothing, so no grid size can deadlock.
    // Its own partial stays on chip (shared memory), so a store and a load through L2 are not
    // on the path that ends the kernel.
    if (!last) return;
    if (gridDim.x == 1) {  // the only block: its total is the result (no partials; the epoch can stay)
        if (threadIdx.x == 0) *result = result_of(block_total);
        return;
    }
    __shared__ P own;
    if (threadIdx.x == 0) own = block_total;
    __syncthreads();
    P v = tc::identity<P, POp>();
    for (int k = threadIdx.x; k < int(gridDim.x); k += blockDim.x) {
        if (k == int(gridDim.x) - 1) {
            v = pop(v, own);
            continue;
        }
        uint64_t w[kWords];
        uint32_t word[kWords];
        partials.wait_inclusive(int64_t(k) * kWords, w);  // (a spin never gives up)
#pragma unroll
        for (int q = 0; q < kWords; ++q) word[q] = tile::value_of(w[q]);
        P x;
        memcpy(&x, word, sizeof(P));
        v = pop(v, x);
    }
    __syncthreads();  // the storage's first use is over in every warp
    v = tc::block_reduce<P, POp>(v, storage, pop);
    if (threadIdx.x == 0) {
        *result = result_of(v);
        // every block has read the epoch (its partial is in): the next run may have the next one
        epoch->advance(epoch_now);
    }
}

// The deepest chain of operations best's result went through (its rounding bound, redukcija's and
// razdalja's tolerance): a thread's terms (its accumulators' chains and their combination), the
// block's tree, the last block's pass over the partials a thread and its tree.
inline int64_t best_depth(int64_t n, int blocks, int threads) {
    const int tree = ceil_log2(threads);
    return ceil_div(n, int64_t(blocks) * threads) + kBestVectors + tree + ceil_div(blocks, threads) + tree;
}

// f(Narrow) with the instantiation a run of n elements takes: Narrow (arg_pack) for arg operators
// on 4-byte values with n < 2^32.
template <typename T, typename Op, typename F>
auto with_narrow(int64_t n, F f) {
    if constexpr (kPackable<T, Op>) {
        if (n <= int64_t(0xffffffffu)) return f(cuda::std::true_type{});
    }
    return f(cuda::std::false_type{});
}

// best's grid: a resident wave (by the kernel's occupancy) at most, and no more blocks than give
// each thread kBestVectors 16-byte loads (small n: fewer partials for the last block).
template <typename T, typename A, typename Op, Map M, bool Narrow = false>
int best_blocks(const tc_device &dev, int64_t n, int threads) {
    return wave_blocks(dev, threads, n, int64_t(kBestVectors) * int64_t(16 / sizeof(T)),
                       reinterpret_cast<const void *>(reduce_best<T, A, Op, M, Narrow>));
}

}  // namespace tc
