// konvolucija: 1-D and 2-D convolution, the lecture's steps in its order: g (one thread an
// output, mask and input from global memory), c (the mask in constant memory: every thread of a
// warp reads the same mask element, a broadcast), t (shared-memory tiles: a block loads its tile
// and the halo around it once, then computes from shared memory). One kernel serves 1-D and 2-D:
// 1-D is an image one row high.
#include "common.cuh"
#include "tecaj/konvolucija.h"

namespace {

constexpr int kMaxTaps = TC_KONVOLUCIJA_MAX_2D * TC_KONVOLUCIJA_MAX_2D;  // 961 >= 63
__constant__ float c_mask[kMaxTaps];

// The input at (x, y), or the border's value outside it: 0 (the lecture's ghost elements) or
// the nearest edge element.
__device__ __forceinline__ float pixel(const float *in, int w, int h, int x, int y, tc_border border) {
    if (x < 0 || x >= w || y < 0 || y >= h) {
        if (border == TC_BORDER_ZERO) return 0.0f;
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

enum { VG, VC, VT, VARIANTS };

const tc_kernel kg[] = {tc::kernel("conv_g", conv_g)};
const tc_kernel kc[] = {tc::kernel("conv_c", conv_c)};
const tc_kernel kt[] = {tc::kernel("conv_t", conv_t)};

const tc_variant variants[VARIANTS] = {
    {"g", "one thread an output; the mask and the input from global memory", "any size, masks up to 31 x 31 (1-D: 63)",
     "a lower bound: read the input once, write the output once", TC_OWN_GRID, TC_KERNELS(kg)},
    {"c", "the mask in constant memory (a broadcast to the warp)", "any size, masks up to 31 x 31 (1-D: 63)",
     "a lower bound: read the input once, write the output once", TC_OWN_GRID, TC_KERNELS(kc)},
    {"t", "shared-memory tiles: the block loads its tile and halo once, then computes from shared memory",
     "any size, masks up to 31 x 31 (1-D: 63)", "read the input once (plus halos), write the output once", TC_OWN_GRID,
     TC_KERNELS(kt)},
};

const tc_program program = {"konvolucija", "pixels", variants, VARIANTS};

Shape shape_of(const tc_konvolucija_plan &p) { return Shape{p.width, p.height, p.mask_w, p.mask_h, p.border}; }

}  // namespace

extern "C" const tc_program *tc_konvolucija_program(void) { return &program; }

extern "C" tc_status tc_konvolucija_make_plan(const tc_konvolucija_request *r, const tc_device *dev,
                                              tc_konvolucija_plan *out) {
    TC_TRY_STATUS(tc::begin_plan(program, r, dev, 256, out));
    tc_launch &p = out->launch;
    if (r->dim != 1 && r->dim != 2) return TC_BAD_ARGUMENT;
    const bool one_d = r->dim == 1;
    if (one_d && r->height != 1) return TC_BAD_ARGUMENT;
    const int limit = one_d ? TC_KONVOLUCIJA_MAX_1D : TC_KONVOLUCIJA_MAX_2D;
    if (r->width < 1 || r->height < 1 || int64_t(r->width) * r->height != p.n) return TC_BAD_ARGUMENT;
    if (r->mask_w < 1 || r->mask_h < 1 || r->mask_w % 2 == 0 || r->mask_h % 2 == 0) return TC_BAD_ARGUMENT;
    if (r->mask_w > limit || r->mask_h > limit || (one_d && r->mask_h != 1)) return TC_OUTSIDE_DOMAIN;
    if (r->border != TC_BORDER_ZERO && r->border != TC_BORDER_REPLICATE) return TC_BAD_ARGUMENT;
    out->dim = r->dim;
    out->width = r->width;
    out->height = r->height;
    out->mask_w = r->mask_w;
    out->mask_h = r->mask_h;
    out->border = r->border;
    // 1-D: a row of threads; 2-D: 32 wide (a warp reads a row's 128 bytes), threads / 32 high
    out->block_x = one_d ? p.threads : 32;
    out->block_y = one_d ? 1 : p.threads / 32;
    const int64_t gx = tc::ceil_div(r->width, out->block_x), gy = tc::ceil_div(r->height, out->block_y);
    if (gx > dev->max_grid_x || gy > 65535) return TC_OUTSIDE_DOMAIN;
    p.blocks = int(gx);
    out->grid_y = int(gy);
    p.out_count = p.items = p.n;
    p.bytes_moved = 8.0 * double(p.n);
    if (p.variant == VT && sizeof(float) * size_t(out->block_x + r->mask_w - 1) * size_t(out->block_y + r->mask_h - 1) > 48 * 1024)
        return TC_OUTSIDE_DOMAIN;  // the patch must fit the default shared memory
    return TC_OK;
}

extern "C" tc_status tc_konvolucija_run(const tc_konvolucija_plan *p, const float *in, const float *mask, float *out,
                                        cudaStream_t s) {
    if (!p || !in || !mask || !out || p->launch.n < 1 || p->block_x < 1 || p->block_y < 1) return TC_BAD_ARGUMENT;
    const dim3 grid(unsigned(p->launch.blocks), unsigned(p->grid_y)), block(unsigned(p->block_x), unsigned(p->block_y));
    const Shape shape = shape_of(*p);
    if (p->launch.variant != VG)  // the mask to constant memory, in stream order
        TC_TRY(cudaMemcpyToSymbolAsync(c_mask, mask, sizeof(float) * size_t(p->mask_w) * size_t(p->mask_h), 0,
                                       cudaMemcpyDeviceToDevice, s));
    switch (p->launch.variant) {
    case VG: conv_g<<<grid, block, 0, s>>>(in, mask, out, shape); break;
    case VC: conv_c<<<grid, block, 0, s>>>(in, out, shape); break;
    case VT: {
        const size_t patch = sizeof(float) * size_t(p->block_x + p->mask_w - 1) * size_t(p->block_y + p->mask_h - 1);
        conv_t<<<grid, block, patch, s>>>(in, out, shape);
        break;
    }
    default: return TC_BAD_ARGUMENT;
    }
    TC_LAUNCHED();
    return TC_OK;
}
