// konvolucija: 1-D and 2-D convolution, the lecture's steps in its order: g (one thread an
// output, mask and input from global memory), c (the mask in constant memory: every thread of a
// warp reads the same mask element, a broadcast), t (shared-memory tiles: a block loads its tile
// and the halo around it once, then computes from shared memory). One kernel serves 1-D and 2-D:
// 1-D is an image one row high. This file is the lecture; best is best.cuh; the
// variant table, plans and runs are plan.cu, the translation unit that includes both.
#pragma once
#include "runtime/common.cuh"
#include "runtime/npp.cuh"
#include "tecaj/konvolucija.h"

namespace {

constexpr int kMaxTaps = TC_KONVOLUCIJA_MAX_2D * TC_KONVOLUCIJA_MAX_2D;  // 961 >= 63
__constant__ float c_mask[kMaxTaps];

// The input at (x, y), or the border's value outside it: 0 (the lecture's ghost elements) or
// the nearest edge element.
// (T: float pixels, or uint8 ones for best's 8-bit path)
template <typename T>
__device__ __forceinline__ T pixel(const T *in, int w, int h, int x, int y, tc_border border) {
    if (x < 0 || x >= w || y < 0 || y >= h) {
        if (border == TC_BORDER_ZERO) return T(0);
        x = x < 0 ? 0 : x >= w ? w - 1 : x;
        y = y < 0 ? 0 : y >= h ? h - 1 : y;
    }
    return in[int64_t(y) * w + x];
}

struct Shape {
    int w, h, mw, mh;
    tc_border border;
};

// Step g: one thread an output; the mask and the input from global memory. Each output reads
// mw x mh inputs and as many mask elements.
__global__ void conv_g(const float *in, const float *mask, float *out, Shape s) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= s.w || y >= s.h) return;
    const int rx = s.mw / 2, ry = s.mh / 2;
    float acc = 0.0f;
    for (int j = 0; j < s.mh; ++j)
        for (int i = 0; i < s.mw; ++i) acc += mask[j * s.mw + i] * pixel(in, s.w, s.h, x - rx + i, y - ry + j, s.border);
    out[int64_t(y) * s.w + x] = acc;
}

// Step c: the mask in constant memory. All threads of a warp read the same mask element at the
// same time: the constant cache broadcasts it, and the mask leaves global memory's traffic.
__global__ void conv_c(const float *in, float *out, Shape s) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= s.w || y >= s.h) return;
    const int rx = s.mw / 2, ry = s.mh / 2;
    float acc = 0.0f;
    for (int j = 0; j < s.mh; ++j)
        for (int i = 0; i < s.mw; ++i) acc += c_mask[j * s.mw + i] * pixel(in, s.w, s.h, x - rx + i, y - ry + j, s.border);
    out[int64_t(y) * s.w + x] = acc;
}

// Step t: shared-memory tiles. The block's tile of blockDim.x x blockDim.y outputs needs its
// inputs plus a halo of rx (ry) on each side, corners included; the block's threads load that
// whole (bx + 2rx) x (by + 2ry) patch cooperatively (more elements than threads: a loop), border
// rule applied once at load, a barrier, then each output reads only shared memory. Every input
// is read from global memory once a tile instead of mw x mh times.
__global__ void conv_t(const float *in, float *out, Shape s) {
    extern __shared__ float patch[];
    const int rx = s.mw / 2, ry = s.mh / 2;
    const int pw = blockDim.x + 2 * rx, ph = blockDim.y + 2 * ry;
    const int x0 = blockIdx.x * blockDim.x - rx, y0 = blockIdx.y * blockDim.y - ry;  // the patch's corner
    const int t = threadIdx.y * blockDim.x + threadIdx.x, threads = blockDim.x * blockDim.y;
    for (int k = t; k < pw * ph; k += threads) patch[k] = pixel(in, s.w, s.h, x0 + k % pw, y0 + k / pw, s.border);
    __syncthreads();
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= s.w || y >= s.h) return;
    float acc = 0.0f;
    for (int j = 0; j < s.mh; ++j)
        for (int i = 0; i < s.mw; ++i) acc += c_mask[j * s.mw + i] * patch[(threadIdx.y + j) * pw + threadIdx.x + i];
    out[int64_t(y) * s.w + x] = acc;
}

}  // namespace
