// razlika best: beyond the lecture; included by plan.cu after the lecture's kernels.
#pragma once

namespace {

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
