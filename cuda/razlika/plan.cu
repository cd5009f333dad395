// razlika: the variant table, the plans and the runs; the translation unit of the lecture (lecture.cuh) and best (best.cuh).
#include "lecture.cuh"
#include "best.cuh"

namespace {

enum { V1, V2, V3, V4, VE4, VBEST, VARIANTS };

const tc_kernel k1[] = {tc::kernel("razlika_1", razlika_1)};
const tc_kernel k2[] = {tc::kernel("razlika_2", razlika_2)};
const tc_kernel k3[] = {tc::kernel("razlika_3", razlika_3)};
const tc_kernel k4[] = {tc::kernel("razlika_4", razlika_4)};
const tc_kernel kbest[] = {tc::kernel("razlika_best", razlika_best)};

const tc_variant variants[VARIANTS] = {
    {"1", "one block, one thread per element, no bounds check (a block past n: the index may exceed)",
     "n <= 1024 (a block of exactly n threads); named, a block of -threads != n, or of 1024 for larger n, runs as "
     "the lecture's failure (WRONG); larger n: 3, 4 or best",
     "12n (read a, b; write c)", 0, TC_KERNELS(k1)},
    {"2", "one block with a bounds check: threads >= n",
     "n <= threads <= 1024 (one block); larger n: 3, 4 or best", "12n", 0, TC_KERNELS(k2)},
    {"3", "many blocks, one element per thread (global index; a grid short of n: a wrong result)",
     "blocks*threads >= n (blocks 0 = ceil(n/threads)); named, a smaller -blocks runs as the lecture's failure "
     "(WRONG); any n: 4 or best",
     "12n", 0, TC_KERNELS(k3)},
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
    out->reach = n;
    switch (p.variant) {
    case V1: {
        // the lesson: a block of the named threads (past n the index exceeds), or of the largest
        // block where n is larger than a block can be (the lecture's <<<1, n>>> cannot launch)
        const int asked = r->base.threads;
        if (n <= 1024 && (!r->lesson || asked == 0 || asked == n)) {
            p.threads = int(n);
        } else {
            if (!r->lesson) return TC_OUTSIDE_DOMAIN;
            out->lesson = 1;
            p.threads = asked ? asked : dev->max_threads_per_block;
            out->reach = std::max<int64_t>(n, p.threads);
        }
        p.blocks = 1;
        break;
    }
    case V2:
        if (n > threads) return TC_OUTSIDE_DOMAIN;
        p.blocks = 1;
        break;
    case V3: {
        // the lesson: a grid short of n leaves the elements past blocks*threads unwritten (the
        // bounds check keeps every write inside n)
        const int64_t need = tc::ceil_div(n, threads);
        if (blocks == 0) p.blocks = int(std::min<int64_t>(need, dev->max_grid_x));
        if (p.blocks < need) {
            if (!r->lesson) return TC_OUTSIDE_DOMAIN;
            out->lesson = 1;
        }
        break;
    }
    case V4:
    case VE4:
        if (blocks == 0) p.blocks = tc::wave_blocks(*dev, threads, n);
        break;
    default:
        if (blocks == 0) p.blocks = tc::wave_blocks(*dev, threads, n, 4);
        break;
    }
    if (out->lesson) p.bytes_moved = 0;  // it does not move what c = a - b must: no rate is claimed
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
