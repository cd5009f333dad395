// razdalja: the baseline (CUB), the variant table, the plans and the runs; the translation unit of the lecture (lecture.cuh).
#include "lecture.cuh"
#include "toolbox/fold_parts.cuh"

namespace {

// The baseline: CUB's device-wide sum over a transform iterator that squares the differences,
// as a CUDA user would write it (thrust::inner_product does the same through CUB).
struct SquaredDifferenceAt {
    const float *a, *b;
    __host__ __device__ float operator()(int64_t i) const { return squared_difference(a[i], b[i]); }
};
using SquaresIterator = thrust::transform_iterator<SquaredDifferenceAt, thrust::counting_iterator<int64_t>>;

cudaError_t cub_sum(void *scratch, size_t &scratch_bytes, const float *a, const float *b, float *sum, int64_t n,
                    cudaStream_t s) {
    SquaresIterator squares(thrust::counting_iterator<int64_t>(0), SquaredDifferenceAt{a, b});
    return cub::DeviceReduce::Sum(scratch, scratch_bytes, squares, sum, n, s);
}

enum { VG, VLS, VLS1, VLS2, VLS3, VLS4, VLA1, VLA2, VBEST, VCUB, VARIANTS };

const tc_kernel kg[] = {tc::kernel("razdalja_g", razdalja_g)};
const tc_kernel kls[] = {tc::kernel("razdalja_ls", razdalja_ls)};
const tc_kernel kls1[] = {tc::kernel("razdalja_ls1", razdalja_ls1)};
const tc_kernel kls2[] = {tc::kernel("razdalja_ls2", razdalja_ls2)};
const tc_kernel kls3[] = {tc::kernel("razdalja_ls3", razdalja_ls3)};
const tc_kernel kls4[] = {tc::kernel("razdalja_ls4", razdalja_ls4)};
const tc_kernel kla1[] = {tc::kernel("razdalja_la1", razdalja_la1)};
const tc_kernel kla2[] = {tc::kernel("razdalja_la2", razdalja_la2)};
const tc_kernel kbest[] = {tc::kernel("reduce_best<f32,(a-b)^2 in f64>", tc::reduce_best<float, double, tc::Sum, tc::DIFF_SQUARE>)};

const tc_variant variants[VARIANTS] = {
    {"g", "device squares the differences, host sums them sequentially (float64) and takes the root", "any n",
     "12n (read a, b; write n squares)", 0, TC_KERNELS(kg)},
    {"ls", "static shared memory, accumulation in shared memory, thread 0 sums its block; host sums partials",
     "any n", "8n + 4*blocks", 0, TC_KERNELS(kls)},
    {"ls1", "dynamic shared memory, accumulation in a register, thread 0 sums its block", "any n",
     "8n + 4*blocks", 0, TC_KERNELS(kls1)},
    {"ls2", "tree reduction in shared memory, stride increasing, barrier after every step", "any n",
     "8n + 4*blocks", 0, TC_KERNELS(kls2)},
    {"ls3", "tree reduction in shared memory, stride decreasing", "any n", "8n + 4*blocks", 0, TC_KERNELS(kls3)},
    {"ls4", "as ls3, the last warp by shuffles without block barriers", "any n", "8n + 4*blocks", 0,
     TC_KERNELS(kls4)},
    {"la1", "as ls4, block totals combined by one atomicAdd per block on the device", "any n", "8n", 0,
     TC_KERNELS(kla1)},
    {"la2", "counter-example: every thread atomically adds each square to one float",
     "n <= 2^22 (one float32 counter takes all n additions: its error bound, n*2^-24, reaches 1/4 there); "
     "larger n: la1 or best",
     "8n", 0, TC_KERNELS(kla2)},
    {"best", "one launch, deterministic (redukcija's engine), in float64: right at 1e20 and 1e-41",
     "any n; its own grid, blocks of 256 or 512 threads (-threads 0 chooses)", "8n", 0, TC_KERNELS(kbest)},
    {"cub", "baseline: cub::DeviceReduce::Sum over a squared-difference transform iterator", "any n", "8n",
     TC_LIBRARY, nullptr, 0},
};

const tc_program program = {"razdalja", "elements", variants, VARIANTS};

}  // namespace

extern "C" const tc_program *tc_razdalja_program(void) { return &program; }

extern "C" tc_status tc_razdalja_make_plan(const tc_razdalja_request *r, const tc_device *dev,
                                           tc_razdalja_plan *out) {
    TC_TRY_STATUS(tc::begin_plan(program, r, dev, 256, out));
    tc_launch &p = out->launch;
    const int v = p.variant;
    const int64_t n = p.n;
    if (v == VBEST) {  // the engine's block and grid
        p.threads = tc::best_threads<float>(*dev, n, r->base.threads);
        if (p.threads == 0) return TC_OUTSIDE_DOMAIN;  // its blocks are 256 or 512 threads
        if (p.blocks == 0) p.blocks = tc::best_blocks<float, double, tc::Sum, tc::DIFF_SQUARE>(*dev, n, p.threads);  // (any grid covers any n)
    }
    const int threads = p.threads;
    if (p.blocks == 0) p.blocks = tc::wave_blocks(*dev, threads, n);
    const int64_t per_thread = tc::ceil_div(n, int64_t(p.blocks) * threads);  // terms each thread adds
    const int tree = tc::ceil_log2(threads);
    p.bytes_moved = 8.0 * double(n);
    p.out_count = 1;
    if (v >= VLS1 && v <= VLA1) p.shared_bytes = sizeof(float) * size_t(threads);
    out->output = TC_RAZDALJA_SCALAR;
    switch (v) {
    case VG:
        out->output = TC_RAZDALJA_SQUARES;
        p.out_count = n;
        p.bytes_moved = 12.0 * double(n);
        out->accumulation_depth = 0;  // the host sums in float64
        break;
    case VLS: case VLS1:
        out->output = TC_RAZDALJA_PARTIALS;
        p.out_count = p.blocks;
        p.bytes_moved += 4.0 * p.blocks;
        out->accumulation_depth = per_thread + threads;
        break;
    case VLS2: case VLS3: case VLS4:
        out->output = TC_RAZDALJA_PARTIALS;
        p.out_count = p.blocks;
        p.bytes_moved += 4.0 * p.blocks;
        out->accumulation_depth = per_thread + tree;
        break;
    case VLA1:
        out->accumulation_depth = per_thread + tree + p.blocks;  // atomics: blocks additions in any order
        break;
    case VLA2:
        if (n > (int64_t(1) << 22)) return TC_OUTSIDE_DOMAIN;
        out->accumulation_depth = n;
        break;
    case VBEST:
        out->output = TC_RAZDALJA_SCALAR64;
        p.out_count = 2;
        p.scratch_bytes = tc::best_scratch(p.blocks);  // the epoch (padded), the partials and their tags
        out->accumulation_depth = tc::best_depth(n, p.blocks, p.threads);
        break;
    default: {  // cub
        // CUB's even-share reduce: assume no more than n/(multiprocessors*128) items per thread,
        // then trees over the threads and tiles (64 levels is generous).
        out->accumulation_depth = tc::ceil_div(n, int64_t(dev->multiprocessors) * 128) + 64;
        size_t bytes = 0;
        TC_TRY(cub_sum(nullptr, bytes, nullptr, nullptr, nullptr, n, nullptr));
        p.scratch_bytes = bytes;
        p.launches = 0;  // CUB's own: not counted
        break;
    }
    }
    return TC_OK;
}

extern "C" tc_status tc_razdalja_run(const tc_razdalja_plan *plan, const float *a, const float *b, float *out,
                                     void *scratch, cudaStream_t s) {
    if (!plan || !a || !b || !out) return TC_BAD_ARGUMENT;
    const tc_launch *p = &plan->launch;
    if (p->n < 1 || p->threads < 32 || p->threads > kMaxThreads || p->blocks < 1) return TC_BAD_ARGUMENT;
    if (p->scratch_bytes > 0 && !scratch) return TC_BAD_ARGUMENT;
    const int g = p->blocks, t = p->threads;
    const size_t dyn = sizeof(float) * size_t(t);
    switch (p->variant) {
    case VG: razdalja_g<<<g, t, 0, s>>>(a, b, out, p->n); break;
    case VLS: razdalja_ls<<<g, t, 0, s>>>(a, b, out, p->n); break;
    case VLS1: razdalja_ls1<<<g, t, dyn, s>>>(a, b, out, p->n); break;
    case VLS2: razdalja_ls2<<<g, t, dyn, s>>>(a, b, out, p->n); break;
    case VLS3: razdalja_ls3<<<g, t, dyn, s>>>(a, b, out, p->n); break;
    case VLS4: razdalja_ls4<<<g, t, dyn, s>>>(a, b, out, p->n); break;
    case VLA1:
        TC_TRY(cudaMemsetAsync(out, 0, sizeof(float), s));
        razdalja_la1<<<g, t, dyn, s>>>(a, b, out, p->n);
        break;
    case VLA2:
        TC_TRY(cudaMemsetAsync(out, 0, sizeof(float), s));
        razdalja_la2<<<g, t, 0, s>>>(a, b, out, p->n);
        break;
    case VBEST: {
        if (reinterpret_cast<uintptr_t>(out) & 7) return TC_BAD_ARGUMENT;  // one double
        tc::reduce_best<float, double, tc::Sum, tc::DIFF_SQUARE><<<g, t, 0, s>>>(
            a, b, reinterpret_cast<double *>(out), static_cast<unsigned char *>(scratch), p->n);
        break;
    }
    case VCUB: {
        size_t bytes = p->scratch_bytes;
        TC_TRY(cub_sum(scratch, bytes, a, b, out, p->n, s));
        break;
    }
    default: return TC_BAD_ARGUMENT;
    }
    TC_LAUNCHED();
    return TC_OK;
}

extern "C" double tc_razdalja_finish(const tc_razdalja_plan *p, const float *out) {
    if (!p || !out) return NAN;
    if (p->output == TC_RAZDALJA_SCALAR) return out[0];
    if (p->output == TC_RAZDALJA_SCALAR64) {
        double s;
        memcpy(&s, out, sizeof s);
        return s;
    }
    double s = 0.0;  // float64: a float32 running sum would stall once it is 2^24 times the terms
    for (int64_t i = 0; i < p->launch.out_count; ++i) s += out[i];
    return s;
}

extern "C" tc_status tc_razdalja_combine_device(const tc_razdalja_plan *p, const void *parts, int count, float *out,
                                                cudaStream_t s) {
    if (!p || p->output != TC_RAZDALJA_SCALAR64 || !parts || !out || count < 1 || (reinterpret_cast<uintptr_t>(out) & 7))
        return TC_BAD_ARGUMENT;
    tc::fold_parts_kernel<double, tc::Sum><<<1, 1, 0, s>>>(static_cast<const unsigned char *>(parts), sizeof(double),
                                                            nullptr, count, 0.0, reinterpret_cast<unsigned char *>(out),
                                                            sizeof(double));
    TC_LAUNCHED();
    return TC_OK;
}

// The bound, for finite inputs: squaring a float32 difference and each float32 addition round
// with relative error at most u = 2^-24; a sum of nonnegative terms in which no term passes
// through more than h additions has relative error at most gamma(h) = h*u/(1-h*u) (Higham,
// Accuracy and Stability, 4.2), so S carries gamma(depth + 2) (difference, square). The host's
// float64 sum of out_count floats adds gamma_64(out_count), and the root halves the relative error.
extern "C" double tc_razdalja_tolerance(const tc_razdalja_plan *p) {
    if (!p) return NAN;
    const auto gamma = [](double k, double unit) { return k * unit >= 1.0 ? INFINITY : k * unit / (1.0 - k * unit); };
    // SCALAR64: the difference, the square and the additions round in float64
    double rel = p->output == TC_RAZDALJA_SCALAR64 ? gamma(double(p->accumulation_depth) + 2.0, 0x1p-53)
                                                   : gamma(double(p->accumulation_depth) + 2.0, 0x1p-24);
    if (p->output == TC_RAZDALJA_SQUARES || p->output == TC_RAZDALJA_PARTIALS) rel += gamma(double(p->launch.out_count), 0x1p-53);
    return 0.5 * rel + 0x1p-52;  // the root, and its own rounding in float64
}
