// razlika: c = a - b on float32 vectors, the lecture's steps from one block to the grid-stride
// loop, and a vectorised one beyond the lecture; the variant table, plans and runs are
// razlika_plan.cuh (included at the end).
#include "common.cuh"
#include "tecaj/razlika.h"

namespace {

// Step 1: one block, one thread per element, no bounds check: correct only when the block has
// exactly n threads, so n is limited by the block size (1024).
__global__ void razlika_1(const float *a, const float *b, float *c) {
    const int i = threadIdx.x;
    c[i] = a[i] - b[i];
}

// Step 2: still one block, but a bounds check lets the block be larger than n (any multiple of 32).
__global__ void razlika_2(const float *a, const float *b, float *c, int n) {
    const int i = threadIdx.x;
    if (i < n) c[i] = a[i] - b[i];
}

// Step 3: many blocks, one element per thread: the global index blockIdx*blockDim + threadIdx.
// The grid must cover n.
__global__ void razlika_3(const float *a, const float *b, float *c, int64_t n) {
    const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] - b[i];
}

// Step 4 (and e4 on managed memory): the grid-stride loop decouples the grid from n, so any grid
// covers any n.
__global__ void razlika_4(const float *a, const float *b, float *c, int64_t n) {
    const int64_t stride = int64_t(gridDim.x) * blockDim.x;
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] - b[i];
}

// Beyond the lecture: 16-byte loads and stores (a quarter of the memory instructions), a grid of
// one resident wave, and the tail of n % 4 elements done by the first threads. Falls back to the
// scalar loop when the pointers are not 16-byte aligned (views into a buffer).
__global__ void razlika_best(const float *a, const float *b, float *c, int64_t n) {
    const int64_t tid = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    const int64_t stride = int64_t(gridDim.x) * blockDim.x;
    const bool aligned = ((reinterpret_cast<uintptr_t>(a) | reinterpret_cast<uintptr_t>(b) |
                           reinterpret_cast<uintptr_t>(c)) & 15) == 0;
    int64_t done = 0;
    if (aligned) {
        const int64_t n4 = n / 4;
        const float4 *a4 = reinterpret_cast<const float4 *>(a), *b4 = reinterpret_cast<const float4 *>(b);
        float4 *c4 = reinterpret_cast<float4 *>(c);
        for (int64_t i = tid; i < n4; i += stride) {
            const float4 x = __ldcs(a4 + i), y = __ldcs(b4 + i);
            __stcs(c4 + i, make_float4(x.x - y.x, x.y - y.y, x.z - y.z, x.w - y.w));
        }
        done = n4 * 4;
    }
    for (int64_t i = done + tid; i < n; i += stride) c[i] = a[i] - b[i];
}

}  // namespace

#include "razlika_plan.cuh"
