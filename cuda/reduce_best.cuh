// The one-launch reduction engine (redukcija's best, razdalja's best): a grid of at most one
// resident wave reads with 16-byte loads, several in flight a thread; each block reduces with
// tc::block_reduce and stores its partial; the last block to finish (a ticket, counted with
// release/acquire order instead of a full fence) reduces the partials in a fixed order and resets
// the ticket. No float atomics: the result is the same bits every run. The element map makes
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

// The partials through L2 (__ldcg), never a line an earlier run left in this SM's L1.
template <typename A>
__device__ __forceinline__ A load_l2(const A *p) { return __ldcg(p); }
template <typename V>
__device__ __forceinline__ tc::KeyValue<V> load_l2(const tc::KeyValue<V> *p) {
    return {__ldcg(&p->value), __ldcg(&p->index)};
}

constexpr int kBestThreads = 256, kBestVectors = 4;  // 16-byte loads a thread, in flight at once

// argmin (Less) / argmax within a 16-byte vector, in index order: a later element wins only if it
// is strictly better, or the first NaN (ties keep the earlier), so the pair operator, its index
// compare and its 64-bit index arithmetic run once a vector instead of once an element.
template <bool Less, typename V>
__device__ __forceinline__ bool later_wins(V x, V best) {
    return (Less ? x < best : x > best) || (x != x && best == best);
}

template <typename T, typename A, typename Op>
__global__ void __launch_bounds__(kBestThreads) reduce_best(const T *a, const T *b, Map map, A *result, A *partials,
                                                           unsigned *ticket, int64_t n) {
    constexpr int W = 16 / sizeof(T);  // elements a 16-byte load brings
    struct alignas(16) Vec { T x[W]; };
    __shared__ tc::BlockReduceStorage<A> storage;
    __shared__ bool last_block;
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

    const A block_total = tc::block_reduce<A, Op>(acc[0], storage, op);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = block_total;
        // release: the partial is visible device-wide before the ticket counts it; acquire: the
        // last block sees every partial (its other threads after the barrier below)
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> count(*ticket);
        last_block = count.fetch_add(1u, cuda::memory_order_acq_rel) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last_block) return;
    A v = tc::identity<A, Op>();
    for (int k = threadIdx.x; k < int(gridDim.x); k += blockDim.x) v = op(v, load_l2(partials + k));
    __syncthreads();  // the storage's first use is over in every warp
    v = tc::block_reduce<A, Op>(v, storage, op);
    if (threadIdx.x == 0) {
        *result = v;
        *ticket = 0;
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
