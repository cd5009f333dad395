// razlika: c = a - b on float32 vectors, the lecture's steps from one block to the grid-stride
// loop. Beyond the lecture, best is best.cuh; the variant table, plans and runs are
// plan.cu, the translation unit that includes both.
#pragma once
#include "runtime/common.cuh"
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

}  // namespace
