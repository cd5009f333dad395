// Shared pieces of the programs: the per-program table the C ABI dispatches through,
// launch planning, error checks, and the warp/block reductions several kernels use.
#pragma once
#include "tecaj.h"
#include <cuda_runtime.h>
#include <cstdint>

namespace tc {

// What each program's .cu file provides to the dispatching C ABI (tecaj.cu).
struct Program {
    const tc_variant *variants;
    int count;
    // Checks the domain and resolves the launch; threads/blocks already validated as arguments.
    tc_status (*plan)(int variant, int64_t n, int threads, int blocks, const tc_device &dev, tc_plan &out);
    // Kernel k of a variant, as a function pointer for cudaFuncGetAttributes, and its name.
    const void *(*kernel)(int variant, int k, const char **name);
};
extern const Program razlika;
extern const Program razdalja;
extern const Program urejanje;

inline tc_status status(cudaError_t e) { return static_cast<tc_status>(e); }
#define TC_TRY(call)                                              \
    do {                                                          \
        cudaError_t tc_e_ = (call);                               \
        if (tc_e_ != cudaSuccess) return ::tc::status(tc_e_);     \
    } while (0)
// Checks the launch just made (configuration errors surface here).
#define TC_LAUNCHED() TC_TRY(cudaGetLastError())

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
inline int ceil_log2(int64_t x) {
    int k = 0;
    while ((int64_t(1) << k) < x) ++k;
    return k;
}

// Blocks that fill the device once (one resident wave), at most enough to cover n with
// `per_thread` elements a thread: the grid a grid-stride kernel wants.
inline int wave_blocks(const tc_device &dev, int threads, int64_t n, int64_t per_thread = 1) {
    int64_t wave = int64_t(dev.multiprocessors) * (dev.max_threads_per_multiprocessor / threads);
    int64_t need = ceil_div(n, int64_t(threads) * per_thread);
    int64_t b = need < wave ? need : wave;
    return int(b < 1 ? 1 : b);
}

// Warp-level sum by shuffles: every lane gets the warp's total. The order of additions is fixed,
// so the result is deterministic.
__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

// Block-level sum: warp sums, then the first warp sums the warp totals. The result is valid in
// thread 0. `warp_totals` must hold blockDim.x/32 floats of shared memory. blockDim.x must be a
// multiple of 32 (the C ABI enforces it).
__device__ __forceinline__ float block_sum(float v, float *warp_totals) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    v = warp_sum(v);
    if (lane == 0) warp_totals[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < warps ? warp_totals[lane] : 0.0f;
        v = warp_sum(v);
    }
    return v;
}

}  // namespace tc
