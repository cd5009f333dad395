// redukcija: every reduction the course teaches, in its order. First the PyCUDA lecture (the
// race, atomics, one block with static and dynamic shared memory, many blocks and a finishing
// launch), then Harris's "Optimizing Parallel Reduction" (reduce0..reduce6 as cuda-samples
// numbers them, and reduce7 with warp shuffles), then seed 003's global synchronisation done right
// (cg: one cooperative launch with grid.sync()). Every kernel takes the operator as a template
// parameter (the lecture's exercise: change min to max, then to sum); norm and dot are sums of
// x^2 and a*b (the element map, chosen at run time). Beyond the lecture: best (one launch,
// deterministic, every operator with argmin/argmax, norms that never overflow: reduce_best.cuh)
// and CUB; the variant table, plans and runs are plan.cu, the translation unit that includes this.
#pragma once
#include "runtime/common.cuh"
#include "toolbox/primitives.cuh"
#include "toolbox/reduce_best.cuh"
#include "tecaj/redukcija.h"
#include <cmath>
#include <cooperative_groups.h>
#include <cuda/atomic>
#include <cstring>
#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

namespace {

constexpr int kMaxThreads = 1024;
// the element map and best: the engine in reduce_best.cuh, shared with razdalja's best
using tc::best_blocks;
using tc::Element;
using tc::IDENTITY;
using tc::Map;
using tc::PRODUCT;
using tc::reduce_best;
using tc::SQUARE;

// Element i of a (and b, read for dot only): the lecture kernels' input, and CUB's through a
// transform iterator (so host-callable too: CUB's dispatch instantiates it on the host side).
template <typename In, typename A>
struct Source {
    const In *a, *b;
    Map map;
    __host__ __device__ __forceinline__ A operator()(int64_t i) const {
        return Element<In, A>::at(a[i], map == PRODUCT ? b[i] : In(0), i, map);
    }
};

// ---- the PyCUDA lecture -------------------------------------------------------------------

// race: the lecture's "does not work, why?". Every thread reads the one global result, combines
// its element and writes it back: thousands of read-modify-writes of one word at once, so most
// updates are lost (a data race). Kept as the counter-example: it runs, and its check says WRONG.
template <typename In, typename A, typename Op>
__global__ void reduce_race(Source<In, A> src, A *result, int64_t n) {
    volatile A *r = result;
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
        *r = Op()(A(*r), src(i));
}

// One atomic update: atomicAdd where the hardware has it, atomicMin/Max for int32, else a
// compare-and-swap loop on the value's bits (floats' min and max).
template <typename A, typename Op>
__device__ __forceinline__ void atomic_combine(A *r, A v) {
    if constexpr (cuda::std::is_same<Op, tc::Sum>::value && cuda::std::is_same<A, int64_t>::value) {
        atomicAdd(reinterpret_cast<unsigned long long *>(r), static_cast<unsigned long long>(v));  // two's complement
    } else if constexpr (cuda::std::is_same<Op, tc::Sum>::value) {
        atomicAdd(r, v);
    } else if constexpr (cuda::std::is_same<A, int>::value && cuda::std::is_same<Op, tc::Min>::value) {
        atomicMin(r, v);
    } else if constexpr (cuda::std::is_same<A, int>::value) {
        atomicMax(r, v);
    } else {
        using Bits = typename cuda::std::conditional<sizeof(A) == 4, unsigned, unsigned long long>::type;
        Bits *address = reinterpret_cast<Bits *>(r);
        Bits old = *address;
        while (true) {
            A current;
            memcpy(&current, &old, sizeof(A));
            const A next = Op()(current, v);
            Bits next_bits;
            memcpy(&next_bits, &next, sizeof(A));
            if (next_bits == old) return;
            const Bits seen = atomicCAS(address, old, next_bits);
            if (seen == old) return;
            old = seen;
        }
    }
}

// atomic: "works, but slowly, why?": every thread combines every element into the one result
// atomically: correct, but all n updates serialise on one address.
template <typename In, typename A, typename Op>
__global__ void reduce_atomic(Source<In, A> src, A *result, int64_t n) {
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
        atomic_combine<A, Op>(result, src(i));
}

// Sets the result to the operator's identity before race and atomic.
template <typename A, typename Op>
__global__ void reduce_init(A *result) {
    *result = tc::identity<A, Op>();
}

// The halving loop of the lecture's find_min: the active half combines with the other half,
// barrier, until one value remains in cache[0]. blockDim.x must be a power of two.
template <typename A, typename Op>
__device__ __forceinline__ void halving(A *cache) {
    const int t = threadIdx.x;
    __syncthreads();
    for (int active = blockDim.x / 2; active > 0; active /= 2) {
        if (t < active) cache[t] = Op()(cache[t], cache[t + active]);
        __syncthreads();
    }
}

// b1: one block, STATIC shared memory (sized for the largest block), one element a thread.
// Domain: n <= threads.
template <typename In, typename A, typename Op>
__global__ void reduce_b1(Source<In, A> src, A *result, int64_t n) {
    __shared__ A cache[kMaxThreads];
    cache[threadIdx.x] = threadIdx.x < n ? src(threadIdx.x) : tc::identity<A, Op>();
    halving<A, Op>(cache);
    if (threadIdx.x == 0) *result = cache[0];
}

// b1d: the same with DYNAMIC shared memory (extern __shared__, its size given at launch).
template <typename In, typename A, typename Op>
__global__ void reduce_b1d(Source<In, A> src, A *result, int64_t n) {
    A *cache = tc::dynamic_shared<A>();
    cache[threadIdx.x] = threadIdx.x < n ? src(threadIdx.x) : tc::identity<A, Op>();
    halving<A, Op>(cache);
    if (threadIdx.x == 0) *result = cache[0];
}

// bm: many blocks. Each thread first folds a grid-stride run of elements into a register (the
// lecture's while (gix < dim)), the block halves in shared memory, each block writes its
// partial; a second launch of the same kernel with one block finishes the partials ("two
// kernels: one to saturate the hardware, one block to finish").
template <typename In, typename A, typename Op>
__global__ void reduce_bm(Source<In, A> src, A *out, int64_t n) {
    A *cache = tc::dynamic_shared<A>();
    A v = tc::identity<A, Op>();
    for (int64_t gix = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; gix < n; gix += int64_t(gridDim.x) * blockDim.x)
        v = Op()(v, src(gix));
    cache[threadIdx.x] = v;
    halving<A, Op>(cache);
    if (threadIdx.x == 0) out[blockIdx.x] = cache[0];
}

// ---- Harris: one element a thread, each block's result to out[blockIdx.x], relaunched on the
// partials until one value remains. Loads past n give the identity (the French lecture's
// if (i < size)); blockDim.x is a power of two.

// r0 (reduce0): interleaved addressing. tid % (2s) picks every (2s)-th thread: the active
// threads are scattered over every warp, so warps diverge.
template <typename In, typename A, typename Op>
__global__ void reduce_r0(Source<In, A> src, A *out, int64_t n) {
    A *sdata = tc::dynamic_shared<A>();
    const unsigned tid = threadIdx.x;
    const int64_t i = int64_t(blockIdx.x) * blockDim.x + tid;
    sdata[tid] = i < n ? src(i) : tc::identity<A, Op>();
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) sdata[tid] = Op()(sdata[tid], sdata[tid + s]);
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

// r1 (reduce1): interleaved addressing with a strided index: index = 2*s*tid keeps the active
// threads contiguous (no divergence), but their shared-memory accesses collide in banks.
template <typename In, typename A, typename Op>
__global__ void reduce_r1(Source<In, A> src, A *out, int64_t n) {
    A *sdata = tc::dynamic_shared<A>();
    const unsigned tid = threadIdx.x;
    const int64_t i = int64_t(blockIdx.x) * blockDim.x + tid;
    sdata[tid] = i < n ? src(i) : tc::identity<A, Op>();
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        const unsigned index = 2 * s * tid;
        if (index < blockDim.x) sdata[index] = Op()(sdata[index], sdata[index + s]);
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

// r2 (reduce2): sequential addressing: the stride halves from blockDim/2, threads tid < s add
// tid + s: contiguous threads, conflict-free banks. Half the threads idle from the first step.
template <typename A, typename Op>
__device__ __forceinline__ void sequential_tree(A *sdata, unsigned stop) {
    for (unsigned s = blockDim.x / 2; s > stop; s >>= 1) {
        if (threadIdx.x < s) sdata[threadIdx.x] = Op()(sdata[threadIdx.x], sdata[threadIdx.x + s]);
        __syncthreads();
    }
}
template <typename In, typename A, typename Op>
__global__ void reduce_r2(Source<In, A> src, A *out, int64_t n) {
    A *sdata = tc::dynamic_shared<A>();
    const unsigned tid = threadIdx.x;
    const int64_t i = int64_t(blockIdx.x) * blockDim.x + tid;
    sdata[tid] = i < n ? src(i) : tc::identity<A, Op>();
    __syncthreads();
    sequential_tree<A, Op>(sdata, 0);
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

// The first add during the load (r3..r5): each thread combines two elements a block apart, so
// half the blocks cover n. i + blockDim.x is read only where it exists (cuda-samples reads past
// the end there at n = 1).
template <typename In, typename A, typename Op>
__device__ __forceinline__ A first_add(const Source<In, A> &src, int64_t n) {
    const int64_t i = int64_t(blockIdx.x) * (blockDim.x * 2) + threadIdx.x;
    A v = i < n ? src(i) : tc::identity<A, Op>();
    if (i + blockDim.x < n) v = Op()(v, src(i + blockDim.x));
    return v;
}

// r3 (reduce3): first add during the global load, then r2's tree: half the blocks.
template <typename In, typename A, typename Op>
__global__ void reduce_r3(Source<In, A> src, A *out, int64_t n) {
    A *sdata = tc::dynamic_shared<A>();
    sdata[threadIdx.x] = first_add<In, A, Op>(src, n);
    __syncthreads();
    sequential_tree<A, Op>(sdata, 0);
    if (threadIdx.x == 0) out[blockIdx.x] = sdata[0];
}

// The last warp of r4..r6. The lecture unrolls it on volatile shared memory with no barrier,
// "warp-synchronous": since Volta the threads of a warp are scheduled independently, so that is
// a race. The lesson (the last 32 values need no block barrier) stays, made correct with
// shuffles, which move the values and synchronise the lanes. Valid in thread 0.
template <typename A, typename Op>
__device__ __forceinline__ A last_warp(const A *sdata, unsigned block) {
    A v = sdata[threadIdx.x];
    if (block >= 64) v = Op()(v, sdata[threadIdx.x + 32]);
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) v = Op()(v, __shfl_down_sync(tc::kFullWarp, v, offset));
    return v;
}

// r4 (reduce4): r3 with the last warp unrolled: no barriers once 32 threads remain.
template <typename In, typename A, typename Op>
__global__ void reduce_r4(Source<In, A> src, A *out, int64_t n) {
    A *sdata = tc::dynamic_shared<A>();
    sdata[threadIdx.x] = first_add<In, A, Op>(src, n);
    __syncthreads();
    sequential_tree<A, Op>(sdata, 32);
    if (threadIdx.x < 32) {
        const A v = last_warp<A, Op>(sdata, blockDim.x);
        if (threadIdx.x == 0) out[blockIdx.x] = v;
    }
}

// r5 and r6's tree, completely unrolled: the block size is a template parameter, so every
// comparison with it is decided at compile time and no loop remains.
template <unsigned BLOCK, typename A, typename Op>
__device__ __forceinline__ A unrolled_tree(A *sdata) {
    const unsigned tid = threadIdx.x;
    if (BLOCK >= 1024) { if (tid < 512) sdata[tid] = Op()(sdata[tid], sdata[tid + 512]); __syncthreads(); }
    if (BLOCK >= 512) { if (tid < 256) sdata[tid] = Op()(sdata[tid], sdata[tid + 256]); __syncthreads(); }
    if (BLOCK >= 256) { if (tid < 128) sdata[tid] = Op()(sdata[tid], sdata[tid + 128]); __syncthreads(); }
    if (BLOCK >= 128) { if (tid < 64) sdata[tid] = Op()(sdata[tid], sdata[tid + 64]); __syncthreads(); }
    return tid < 32 ? last_warp<A, Op>(sdata, BLOCK) : sdata[tid];
}

// r5 (reduce5): r4 completely unrolled for its block size.
template <unsigned BLOCK, typename In, typename A, typename Op>
__global__ void reduce_r5(Source<In, A> src, A *out, int64_t n) {
    A *sdata = tc::dynamic_shared<A>();
    sdata[threadIdx.x] = first_add<In, A, Op>(src, n);
    __syncthreads();
    const A v = unrolled_tree<BLOCK, A, Op>(sdata);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
}

// r6 (reduce6): many elements a thread: a grid of about one resident wave, each thread folds a
// grid-stride run (two elements a block apart each step) before the unrolled tree. Brent's
// theorem: p = n / log n threads do O(n) work in O(log n) steps (cost-optimal).
template <unsigned BLOCK, typename In, typename A, typename Op>
__global__ void reduce_r6(Source<In, A> src, A *out, int64_t n) {
    A *sdata = tc::dynamic_shared<A>();
    const int64_t grid = int64_t(BLOCK) * 2 * gridDim.x;
    A v = tc::identity<A, Op>();
    for (int64_t i = int64_t(blockIdx.x) * (BLOCK * 2) + threadIdx.x; i < n; i += grid) {
        v = Op()(v, src(i));
        if (i + BLOCK < n) v = Op()(v, src(i + BLOCK));
    }
    sdata[threadIdx.x] = v;
    __syncthreads();
    v = unrolled_tree<BLOCK, A, Op>(sdata);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
}

// r7 (reduce7): r6's loop, then warp shuffles instead of the shared-memory tree: each warp
// reduces in registers, the warps' values meet in 32 words of shared memory, the first warp
// reduces those. int32 min and max use the hardware's warp reduction (__reduce_min_sync, sm_80+).
template <typename A, typename Op>
__device__ __forceinline__ A warp_shuffle_reduce(A v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if constexpr (cuda::std::is_same<A, int>::value && cuda::std::is_same<Op, tc::Min>::value)
        return __reduce_min_sync(tc::kFullWarp, v);
    else if constexpr (cuda::std::is_same<A, int>::value && cuda::std::is_same<Op, tc::Max>::value)
        return __reduce_max_sync(tc::kFullWarp, v);
    else
#endif
    {
#pragma unroll
        for (int offset = 16; offset > 0; offset >>= 1) v = Op()(v, __shfl_down_sync(tc::kFullWarp, v, offset));
        return v;
    }
}
// The block's values through the shuffles: each warp in registers, the warps' values through 32
// words of shared memory, the first warp over those. Valid in thread 0; a barrier before reusing warps.
template <typename A, typename Op>
__device__ __forceinline__ A shuffle_block_reduce(A v, A *warps) {
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = warp_shuffle_reduce<A, Op>(v);
    if (lane == 0) warps[warp] = v;
    __syncthreads();
    if (warp == 0) v = warp_shuffle_reduce<A, Op>(lane < blockDim.x / 32 ? warps[lane] : tc::identity<A, Op>());
    return v;
}
template <typename In, typename A, typename Op>
__global__ void reduce_r7(Source<In, A> src, A *out, int64_t n) {
    __shared__ A warps[32];
    const int64_t grid = int64_t(blockDim.x) * 2 * gridDim.x;
    A v = tc::identity<A, Op>();
    for (int64_t i = int64_t(blockIdx.x) * (blockDim.x * 2) + threadIdx.x; i < n; i += grid) {
        v = Op()(v, src(i));
        if (i + blockDim.x < n) v = Op()(v, src(i + blockDim.x));
    }
    v = shuffle_block_reduce<A, Op>(v, warps);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
}

// ---- seed 003's global synchronisation ---------------------------------------------------

// cg: one launch. Seed 003: "CUDA has no global synchronisation, so the reduction recurses through
// launches": true of plain launches; a cooperative launch (CUDA 9+) keeps every block resident, so
// grid.sync() is a barrier of the grid: each block writes its partial, grid.sync(), block 0 reduces them.
template <typename In, typename A, typename Op>
__global__ void reduce_cg(Source<In, A> src, A *partials, A *out, int64_t n) {
    __shared__ A warps[32];
    cooperative_groups::grid_group grid = cooperative_groups::this_grid();
    A v = tc::identity<A, Op>();
    for (int64_t i = int64_t(grid.thread_rank()); i < n; i += int64_t(grid.size())) v = Op()(v, src(i));
    v = shuffle_block_reduce<A, Op>(v, warps);
    if (threadIdx.x == 0) partials[blockIdx.x] = v;
    grid.sync();
    if (blockIdx.x != 0) return;
    v = tc::identity<A, Op>();
    for (unsigned i = threadIdx.x; i < gridDim.x; i += blockDim.x) v = Op()(v, partials[i]);
    v = shuffle_block_reduce<A, Op>(v, warps);
    if (threadIdx.x == 0) *out = v;
}

}  // namespace
