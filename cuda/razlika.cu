// razlika: c = a - b on float32 vectors, the lecture's steps from one block to the grid-stride
// loop, and a vectorised one beyond the lecture.
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

enum { V1, V2, V3, V4, VE4, VBEST, VARIANTS };

const tc_kernel k1[] = {tc::kernel("razlika_1", razlika_1)};
const tc_kernel k2[] = {tc::kernel("razlika_2", razlika_2)};
const tc_kernel k3[] = {tc::kernel("razlika_3", razlika_3)};
const tc_kernel k4[] = {tc::kernel("razlika_4", razlika_4)};
const tc_kernel kbest[] = {tc::kernel("razlika_best", razlika_best)};

const tc_variant variants[VARIANTS] = {
    {"1", "one block, one thread per element, no bounds check",
     "n <= 1024 (the block has exactly n threads); larger n: 3, 4 or best", "12n (read a, b; write c)", 0,
     TC_KERNELS(k1)},
    {"2", "one block with a bounds check: threads >= n",
     "n <= threads <= 1024 (one block); larger n: 3, 4 or best", "12n", 0, TC_KERNELS(k2)},
    {"3", "many blocks, one element per thread (global index)",
     "blocks*threads >= n (blocks 0 = ceil(n/threads)); any n: 4 or best", "12n", 0, TC_KERNELS(k3)},
    {"4", "grid-stride loop: any grid covers any n (blocks 0 = one resident wave)", "any n", "12n", 0,
     TC_KERNELS(k4)},
    {"e4", "4 on unified (managed) memory: no explicit copies, pages migrate on demand", "any n", "12n",
     TC_MANAGED, TC_KERNELS(k4)},
    {"best", "16-byte vector loads/stores, one resident wave, streaming cache hints", "any n", "12n", 0,
     TC_KERNELS(kbest)},
};

const tc_program program = {"razlika", "elements", variants, VARIANTS};

}  // namespace

extern "C" const tc_program *tc_razlika_program(void) { return &program; }

extern "C" tc_status tc_razlika_make_plan(const tc_razlika_request *r, const tc_device *dev, tc_razlika_plan *out) {
    TC_TRY_STATUS(tc::begin_plan(program, r, dev, 256, out));
    tc_launch &p = out->launch;
    const int64_t n = p.n;
    const int threads = p.threads, blocks = p.blocks;
    p.out_count = n;
    p.bytes_moved = 12.0 * double(n);
    switch (p.variant) {
    case V1:
        if (n > 1024) return TC_OUTSIDE_DOMAIN;
        p.threads = int(n);
        p.blocks = 1;
        break;
    case V2:
        if (n > threads) return TC_OUTSIDE_DOMAIN;
        p.blocks = 1;
        break;
    case V3:
        if (blocks == 0) {
            const int64_t need = tc::ceil_div(n, threads);
            if (need > dev->max_grid_x) return TC_OUTSIDE_DOMAIN;
            p.blocks = int(need);
        } else if (int64_t(blocks) * threads < n) {
            return TC_OUTSIDE_DOMAIN;
        }
        break;
    case V4:
    case VE4:
        if (blocks == 0) p.blocks = tc::wave_blocks(*dev, threads, n);
        break;
    default:
        if (blocks == 0) p.blocks = tc::wave_blocks(*dev, threads, n, 4);
        break;
    }
    return TC_OK;
}

extern "C" tc_status tc_razlika_run(const tc_razlika_plan *plan, const float *a, const float *b, float *c,
                                    cudaStream_t s) {
    if (!plan || !a || !b || !c) return TC_BAD_ARGUMENT;
    const tc_launch *p = &plan->launch;
    if (p->n < 1 || p->threads < 1 || p->blocks < 1) return TC_BAD_ARGUMENT;
    switch (p->variant) {
    case V1: razlika_1<<<1, p->threads, 0, s>>>(a, b, c); break;
    case V2: razlika_2<<<1, p->threads, 0, s>>>(a, b, c, int(p->n)); break;
    case V3: razlika_3<<<p->blocks, p->threads, 0, s>>>(a, b, c, p->n); break;
    case V4: case VE4: razlika_4<<<p->blocks, p->threads, 0, s>>>(a, b, c, p->n); break;
    case VBEST: razlika_best<<<p->blocks, p->threads, 0, s>>>(a, b, c, p->n); break;
    default: return TC_BAD_ARGUMENT;
    }
    TC_LAUNCHED();
    return TC_OK;
}
