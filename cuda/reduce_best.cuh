// The one-launch reduction engine (redukcija's best, razdalja's best): a grid of at most one
// resident wave reads with 16-byte loads, several in flight a thread; each block reduces with
// tc::block_reduce and stores its partial, each word tagged with the run's epoch; the grid's last
// block waits on the tags, reduces the partials in a fixed order and moves the epoch on. No atomic
// read-modify-write at all, and no float atomics: the result is the same bits every run.
// (Until the fourth session the blocks took a ticket, and the last to take it reduced the
// partials: the ticket's round trip, behind every block's atomic on one word, and then a second
// round trip for the partials. Here the wait ends as the last partial lands.) The element map makes
// norms (x^2), dots (x*y) and distances ((x-y)^2) sums of one stream; float32 inputs can
// accumulate in float64, where no square or product of a finite float32 overflows (1e20^2) or
// underflows (1e-41^2). Arg operators carry (value, index) pairs.
#pragma once
#include "common.cuh"
#include "primitives.cuh"
#include <cuda/atomic>
#include <cuda/std/type_traits>

namespace tc {

enum Map { IDENTITY, SQUARE, PRODUCT, DIFF_SQUARE };
__host__ __device__ constexpr bool two_inputs(Map map) { return map == PRODUCT || map == DIFF_SQUARE; }

// Element i as an accumulator of type A sees it: x, x^2 (norm), x*y (dot) or (x-y)^2 (distance),
// converted first (so float32 squares, products and differences made in a float64 accumulator are
// exact, the difference's square rounded once); arg operators see (x, i). One mapping for every
// variant: redukcija's lecture Source, best and CUB.
template <typename T, typename A>
struct Element {
    __host__ __device__ __forceinline__ static A at(T x, T y, int64_t, Map map) {
        const A v = A(x);
        if (map == DIFF_SQUARE) {
            const A d = v - A(y);
            return d * d;
        }
        return map == SQUARE ? v * v : map == PRODUCT ? v * A(y) : v;
    }
};
template <typename T>
struct Element<T, tc::KeyValue<T>> {
    __host__ __device__ __forceinline__ static tc::KeyValue<T> at(T x, T, int64_t i, Map) { return {x, i}; }
};

// best's scratch: a 256-byte header (the run's epoch), then the partials (at most 16 bytes each),
// each 32-bit word of them in 8 bytes beside its tag; zero-filled once.
inline size_t best_scratch(int blocks) { return 256 + align256(size_t(32) * size_t(blocks)); }

constexpr int kBestThreads = 256, kBestVectors = 4;  // 16-byte loads a thread, in flight at once

// argmin (Less) / argmax within a 16-byte vector, in index order: a later element wins only if it
// is strictly better, or the first NaN (ties keep the earlier), so the pair operator, its index
// compare and its 64-bit index arithmetic run once a vector instead of once an element.
template <bool Less, typename V>
__device__ __forceinline__ bool later_wins(V x, V best) {
    return (Less ? x < best : x > best) || (x != x && best == best);
}

// scratch: best_scratch's layout (epoch: its header; partials after it)
template <typename T, typename A, typename Op>
__global__ void __launch_bounds__(kBestThreads) reduce_best(const T *a, const T *b, Map map, A *result, A *partials,
                                                           unsigned *epoch, int64_t n) {
    constexpr int W = 16 / sizeof(T);  // elements a 16-byte load brings
    struct alignas(16) Vec { T x[W]; };
    __shared__ tc::BlockReduceStorage<A> storage;
    __shared__ unsigned epoch_shared;
    if (threadIdx.x == 0) epoch_shared = cuda::atomic_ref<unsigned, cuda::thread_scope_device>(*epoch).load(cuda::memory_order_relaxed);
    const Op op{};
    constexpr bool kArg = cuda::std::is_same<Op, tc::ArgMin>::value || cuda::std::is_same<Op, tc::ArgMax>::value;
    const int64_t tid = int64_t(blockIdx.x) * blockDim.x + threadIdx.x, threads = int64_t(gridDim.x) * blockDim.x;
    // kBestVectors independent accumulators (independent chains; combined in a fixed order)
    A acc[kBestVectors];
#pragma unroll
    for (int k = 0; k < kBestVectors; ++k) acc[k] = tc::identity<A, Op>();
    int64_t done = 0;
    const bool two = two_inputs(map);
    if (((reinterpret_cast<uintptr_t>(a) | (two ? reinterpret_cast<uintptr_t>(b) : 0)) & 15) == 0) {
        const Vec *va = reinterpret_cast<const Vec *>(a), *vb = reinterpret_cast<const Vec *>(two ? b : a);
        const int64_t vectors = n / W;
        // kBestVectors loads in flight a thread (predicated at the end), consecutive threads on
        // consecutive vectors
        for (int64_t v = tid; v < vectors; v += kBestVectors * threads) {
            Vec x[kBestVectors], y[kBestVectors];
#pragma unroll
            for (int k = 0; k < kBestVectors; ++k) {
                const int64_t at = v + k * threads;
                if (at < vectors) {
                    x[k] = va[at];
                    if (two) y[k] = vb[at];
                }
            }
#pragma unroll
            for (int k = 0; k < kBestVectors; ++k) {
                const int64_t at = v + k * threads;
                if (at < vectors) {
                    if constexpr (kArg) {  // the vector's winner first (in index order), then one pair step
                        T best = x[k].x[0];
                        int e_best = 0;
#pragma unroll
                        for (int e = 1; e < W; ++e)
                            if (later_wins<cuda::std::is_same<Op, tc::ArgMin>::value>(x[k].x[e], best)) best = x[k].x[e], e_best = e;
                        acc[k] = op(acc[k], A{best, at * W + e_best});
                    } else {
#pragma unroll
                        for (int e = 0; e < W; ++e)
                            acc[k] = op(acc[k], Element<T, A>::at(x[k].x[e], two ? y[k].x[e] : T(0), at * W + e, map));
                    }
                }
            }
        }
        done = vectors * W;
    }
    for (int64_t i = done + tid; i < n; i += threads) acc[0] = op(acc[0], Element<T, A>::at(a[i], two ? b[i] : T(0), i, map));
#pragma unroll
    for (int k = 1; k < kBestVectors; ++k) acc[0] = op(acc[0], acc[k]);

    const A block_total = tc::block_reduce<A, Op>(acc[0], storage, op);  // (its barrier: epoch_shared is in)
    // This run's tag: the epoch + 1, which a zero-filled slot never carries. The partial goes out
    // as its 32-bit words, each in one 64-bit store beside the tag (seen whole), so the waiting
    // block's loads of all its words go out at once and the tags say they are this run's.
    // (Storing a wider partial first and its tag after, with release order, put a second round
    // trip behind the tag: argmin and razdalja at 10^6 got slower than with the ticket.)
    const unsigned tag = epoch_shared + 1u;
    constexpr int kWords = int(sizeof(A) / 4);
    static_assert(sizeof(A) % 4 == 0, "a partial is whole 32-bit words");
    unsigned long long *const slots = reinterpret_cast<unsigned long long *>(partials);  // kWords a block
    if (threadIdx.x == 0) {
        uint32_t word[kWords];
        memcpy(word, &block_total, sizeof(A));
#pragma unroll
        for (int q = 0; q < kWords; ++q)
            cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(slots[int64_t(blockIdx.x) * kWords + q])
                .store((unsigned long long)tag << 32 | word[q], cuda::memory_order_relaxed);
    }
    // The grid's last block (dispatched last) waits for every partial: only it waits, and for
    // blocks that wait for nothing, so no grid size can deadlock.
    if (blockIdx.x != gridDim.x - 1) return;
    A v = tc::identity<A, Op>();
    for (int k = threadIdx.x; k < int(gridDim.x); k += blockDim.x) {
        unsigned long long w[kWords];
        uint32_t word[kWords];
#pragma unroll
        for (int q = 0; q < kWords; ++q)
            w[q] = cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(slots[int64_t(k) * kWords + q]).load(cuda::memory_order_relaxed);
#pragma unroll
        for (int q = 0; q < kWords; ++q) {
            while (unsigned(w[q] >> 32) != tag)
                w[q] = cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(slots[int64_t(k) * kWords + q]).load(cuda::memory_order_relaxed);
            word[q] = uint32_t(w[q]);
        }
        A x;
        memcpy(&x, word, sizeof(A));
        v = op(v, x);
    }
    __syncthreads();  // the storage's first use is over in every warp
    v = tc::block_reduce<A, Op>(v, storage, op);
    if (threadIdx.x == 0) {
        *result = v;
        // every block has read the epoch (its partial is in): the next run may have the next one
        cuda::atomic_ref<unsigned, cuda::thread_scope_device>(*epoch).store(tag, cuda::memory_order_relaxed);
    }
}

// best's grid: a resident wave (by the kernel's occupancy) at most, and no more blocks than give
// each thread kBestVectors 16-byte loads (small n: fewer partials for the last block).
template <typename T, typename A, typename Op>
int best_blocks(const tc_device &dev, int64_t n) {
    return wave_blocks(dev, kBestThreads, n, int64_t(kBestVectors) * int64_t(16 / sizeof(T)),
                       reinterpret_cast<const void *>(reduce_best<T, A, Op>));
}

}  // namespace tc
