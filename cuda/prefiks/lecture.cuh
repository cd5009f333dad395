// prefiks: prefix sums (scans), the Czech lecture's steps in its order: Hillis-Steele in one
// block, the warp's five shuffle steps, the block's scan of warps, the grid's three kernels
// (scan the tiles, scan their totals recursively, add the offsets), the cost-optimal scan (each
// thread a contiguous run), and the segmented scan with head flags over the grid scan; CUB as
// the baseline. Every kernel takes the operator as a template parameter (sum, max, min).
// int32 sums run on uint32 (two's complement wrap, defined); max and min on int32.
// This file is the lecture; best is best.cuh; the variant table, plans and runs are plan.cu,
// the translation unit that includes both.
#pragma once
#include "runtime/common.cuh"
#include "toolbox/primitives.cuh"
#include "tecaj/prefiks.h"
#include <cmath>
#include <cuda/atomic>
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/transform_iterator.h>

namespace {

// A 32-bit element's bits and back (status words hold them).
template <typename T>
__device__ __forceinline__ uint32_t bits_of(T v) {
    uint32_t b;
    memcpy(&b, &v, 4);
    return b;
}
template <typename T>
__device__ __forceinline__ T from_bits(uint32_t b) {
    T v;
    memcpy(&v, &b, 4);
    return v;
}

// A segmented element: the value and its head flag. The lecture's operator:
// (s_i, f_i) + (s_j, f_j) = (f_j ? s_j : s_i + s_j, f_i | f_j): a head restarts the scan.
template <typename T>
struct Seg {
    T v;
    uint32_t f;
};
template <typename Op>
struct Segmented {
    template <typename S>
    __host__ __device__ static constexpr S identity() {
        return S{Op::template identity<decltype(S::v)>(), 0u};
    }
    template <typename T>
    __host__ __device__ __forceinline__ Seg<T> operator()(Seg<T> a, Seg<T> b) const {
        return {b.f ? b.v : Op()(a.v, b.v), a.f | b.f};
    }
};

// Shuffles of built-in values (primitives.cuh's) and of segmented pairs, member by member (which
// also lets tc::warp_scan scan pairs).
using tc::shfl;
using tc::shfl_up;
template <typename T>
__device__ __forceinline__ Seg<T> shfl_up(Seg<T> v, int d) {
    return {__shfl_up_sync(tc::kFullWarp, v.v, d), __shfl_up_sync(tc::kFullWarp, v.f, d)};
}
template <typename T>
__device__ __forceinline__ Seg<T> shfl(Seg<T> v, int lane) {
    return {__shfl_sync(tc::kFullWarp, v.v, lane), __shfl_sync(tc::kFullWarp, v.f, lane)};
}

// Step hs: one block, Hillis-Steele in shared memory: for offsets 1, 2, 4, ... every thread reads
// its neighbour offset places back into a temporary, barrier, combines, barrier. (The lecture's
// loop reads offset << 1, which never changes the offset: it meant offset <<= 1.) log2(threads)
// steps of n operations each: not cost-optimal. Domain: n <= threads.
template <typename T, typename Op, bool EXCL>
__global__ void scan_hs(const T *in, T *out, int n) {
    T *s = tc::dynamic_shared<T>();
    const int t = threadIdx.x;
    s[t] = t < n ? in[t] : tc::identity<T, Op>();
    __syncthreads();
    for (int offset = 1; offset < int(blockDim.x); offset <<= 1) {
        const T before = t >= offset ? s[t - offset] : tc::identity<T, Op>();
        __syncthreads();
        s[t] = Op()(before, s[t]);
        __syncthreads();
    }
    if (t < n) out[t] = EXCL ? (t == 0 ? tc::identity<T, Op>() : s[t - 1]) : s[t];
}

// The lecture's scanWarp: five steps, lanes >= 1, 2, 4, 8, 16 add the value that many lanes
// back. Its volatile shared-memory form relies on a warp running in lock-step, a race since Volta
// (threads of a warp are scheduled independently); the shuffles keep the five steps and both
// move the values and synchronise the lanes. Inclusive, in every lane.
template <typename T, typename Op>
__device__ __forceinline__ T scan_warp_inclusive(T v) {
    const unsigned lane = threadIdx.x & 31;
    T u;
    u = shfl_up(v, 1); if (lane >= 1) v = Op()(u, v);
    u = shfl_up(v, 2); if (lane >= 2) v = Op()(u, v);
    u = shfl_up(v, 4); if (lane >= 4) v = Op()(u, v);
    u = shfl_up(v, 8); if (lane >= 8) v = Op()(u, v);
    u = shfl_up(v, 16); if (lane >= 16) v = Op()(u, v);
    return v;
}

// Step warp: one warp scans up to 32 elements. Exclusive: the inclusive value one lane back.
template <typename T, typename Op, bool EXCL>
__global__ void scan_warp(const T *in, T *out, int n) {
    const int lane = threadIdx.x;
    const T v = scan_warp_inclusive<T, Op>(lane < n ? in[lane] : tc::identity<T, Op>());
    const T before = shfl_up(v, 1);
    if (lane < n) out[lane] = EXCL ? (lane == 0 ? tc::identity<T, Op>() : before) : v;
}

// The lecture's scanBlock: scan every warp, the last lane of each writes its warp's total, the
// first warp scans those totals (exclusive), every thread adds its warp's offset. Inclusive
// result in every thread; the block's total in *total (every thread). `warp_totals`: 32 Ts of
// shared memory. blockDim.x: a multiple of 32.
template <typename T, typename Op>
__device__ __forceinline__ T scan_block_inclusive(T v, T *warp_totals, T *total) {
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    v = scan_warp_inclusive<T, Op>(v);
    if (lane == 31) warp_totals[warp] = v;
    __syncthreads();
    if (warp == 0) {
        const T w = scan_warp_inclusive<T, Op>(lane < warps ? warp_totals[lane] : tc::identity<T, Op>());
        const T before = shfl_up(w, 1);
        __syncwarp();
        if (lane < warps) warp_totals[lane] = lane == 0 ? tc::identity<T, Op>() : before;  // exclusive
        if (lane == 31) warp_totals[32] = w;
    }
    __syncthreads();
    *total = warp_totals[32];
    return warp == 0 ? v : Op()(warp_totals[warp], v);
}

// One block's tile of blockDim.x elements from `base`: inclusive or exclusive (the inclusive
// value one thread back, through shared memory), the tile's total to sums[blockIdx.x] when given.
template <typename T, typename Op, bool EXCL>
__device__ __forceinline__ void scan_tile(const T *in, T *out, T *sums, int64_t n) {
    __shared__ T warp_totals[33];
    T *s = tc::dynamic_shared<T>();
    const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    T total;
    const T v = scan_block_inclusive<T, Op>(i < n ? in[i] : tc::identity<T, Op>(), warp_totals, &total);
    if (EXCL) {
        s[threadIdx.x] = v;
        __syncthreads();
    }
    if (i < n) out[i] = !EXCL ? v : threadIdx.x == 0 ? tc::identity<T, Op>() : s[threadIdx.x - 1];
    if (sums && threadIdx.x == 0) sums[blockIdx.x] = total;
}

// Step block: one block scans up to blockDim.x elements. Domain: n <= threads.
template <typename T, typename Op, bool EXCL>
__global__ void scan_block(const T *in, T *out, int n) {
    scan_tile<T, Op, EXCL>(in, out, nullptr, n);
}

// Step grid, kernel 1: every block scans its tile and writes the tile's total.
template <typename T, typename Op, bool EXCL>
__global__ void grid_tiles(const T *in, T *out, T *sums, int64_t n) {
    scan_tile<T, Op, EXCL>(in, out, sums, n);
}

// Step grid, kernel 3 (kernel 2 is this scan, recursively, on the totals): every element of
// tile b combines the exclusive scan of the totals before it, offsets[b].
template <typename T, typename Op>
__global__ void grid_add(T *out, const T *offsets, int64_t n) {
    const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n && blockIdx.x > 0) out[i] = Op()(offsets[blockIdx.x], out[i]);
}

// Step co, the cost-optimal scan: p < n threads, each scans its own contiguous run of `run`
// elements sequentially (O(n) work in all) and writes its run's total; the totals are scanned
// (the grid scan); each run then combines its offset. Work O(n), steps O(n/p + log p).
template <typename T, typename Op, bool EXCL>
__global__ void co_runs(const T *in, T *out, T *totals, int64_t n, int64_t run) {
    const int64_t p = int64_t(blockIdx.x) * blockDim.x + threadIdx.x, begin = p * run;
    T acc = tc::identity<T, Op>();
    for (int64_t i = begin; i < begin + run && i < n; ++i) {
        const T x = in[i];
        if (EXCL) out[i] = acc;
        acc = Op()(acc, x);
        if (!EXCL) out[i] = acc;
    }
    totals[p] = acc;
}

template <typename T, typename Op>
__global__ void co_add(T *out, const T *offsets, int64_t n, int64_t run) {
    const int64_t p = int64_t(blockIdx.x) * blockDim.x + threadIdx.x, begin = p * run;
    if (p == 0) return;
    const T offset = offsets[p];
    for (int64_t i = begin; i < begin + run && i < n; ++i) out[i] = Op()(offset, out[i]);
}

// Step seg: values and head flags become pairs (position 0 always heads), the grid scan runs
// with the segmented operator, the values come back; exclusive: a head gets the identity.
template <typename T>
__global__ void seg_pack(const T *in, const uint8_t *flags, Seg<T> *pairs, int64_t n) {
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
        pairs[i] = {in[i], uint32_t(i == 0 || flags[i] != 0)};
}
template <typename T, typename Op, bool EXCL>
__global__ void seg_unpack(const Seg<T> *pairs, const uint8_t *flags, T *out, int64_t n) {
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
        out[i] = EXCL && (i == 0 || flags[i] != 0) ? tc::identity<T, Op>() : pairs[i].v;
}

}  // namespace
