/* redukcija: reductions of a vector (cuda/redukcija/): sum, min, max, mean, norm, dot,
 * argmin, argmax of float32, float64 or int32 elements.
 *
 * One semantics for every variant: min/max/argmin/argmax propagate NaN (any NaN gives NaN; the
 * lecture's fmin would drop it); argmin/argmax return the lowest index among equal values and
 * among NaNs (-0.0 equals +0.0 there), and the value at that index, bit for bit; min of all +Inf
 * is +Inf; a sum of only -0.0 is -0.0; int32 sums, norms and dots accumulate in int64 (exact; the
 * result is int64); indices are 64-bit. mean = sum / n; norm = sqrt(sum x^2); dot = sum a_i b_i. */
#ifndef TECAJ_REDUKCIJA_H
#define TECAJ_REDUKCIJA_H
#include "../tecaj.h"
#ifdef __cplusplus
extern "C" {
#endif

const tc_program *tc_redukcija_program(void);

/* Operators: every tc_op. Types: TC_FLOAT32, TC_FLOAT64, TC_INT32. */

typedef struct {
    tc_request base; /* base.n elements; threads a power of two where the variant says TC_POW2_THREADS */
    tc_op op;
    tc_dtype type;
} tc_redukcija_request;

typedef struct {
    tc_launch launch;  /* out_count = 1 result (a tc_redukcija_result's worth of bytes) */
    tc_op op;
    tc_dtype type;
    tc_dtype accumulator; /* what the device accumulates in: TC_FLOAT32, TC_FLOAT64, TC_INT64 or TC_INT32 */
    int passes;        /* launches of the reduction itself (the lecture's relaunches on the partials) */
    int64_t depth;     /* the most additions one element goes through (the error bound's depth) */
    tc_device device;  /* the device planned for: the lecture's later passes size their grids from it */
} tc_redukcija_plan;

/* The result, decoded on the host from the bytes the run wrote to out. */
typedef struct {
    double value;   /* the result as a double (mean: sum / n; norm: the root) */
    int64_t exact;  /* int32 sum, norm^2 and dot: the exact int64; min/max: the int32 */
    int64_t index;  /* argmin/argmax: the index; -1 otherwise */
} tc_redukcija_result;

/* Bytes of device memory the run writes its result into (out). */
#define TC_REDUKCIJA_OUT_BYTES 16

/* TC_OUTSIDE_DOMAIN for more blocks than the variant takes on the device (cg: those resident at
 * once) leaves the most it takes in out->launch.blocks. */
tc_status tc_redukcija_make_plan(const tc_redukcija_request *request, const tc_device *device, tc_redukcija_plan *out);
/* a: n elements of the plan's type; b: the second vector for dot (else ignored, may be NULL);
 * out: TC_REDUKCIJA_OUT_BYTES of device memory; scratch: plan.launch.scratch_bytes. */
tc_status tc_redukcija_run(const tc_redukcija_plan *plan, const void *a, const void *b, void *out, void *scratch,
                           cudaStream_t stream);
/* Decodes the bytes copied back from out. */
tc_status tc_redukcija_finish(const tc_redukcija_plan *plan, const void *out_on_host, tc_redukcija_result *result);
/* The derived bound on |result - exact| for sums, means, dots and norms of finite inputs, given
 * sum_abs = sum |x_i| (dot: sum |a_i b_i|; norm: sum x_i^2), from the plan's accumulation depth
 * (Higham's gamma); 0 where the result must be exact (min, max, arg*, int32). */
double tc_redukcija_tolerance(const tc_redukcija_plan *plan, double sum_abs);

/* Several GPUs: folds count results (TC_REDUKCIJA_OUT_BYTES each, copied back from each GPU's out,
 * in GPU order) left to right with the plan's operator in its accumulator's format, into out (the
 * same layout, for tc_redukcija_finish with a plan of the whole n). first[i] is the index of GPU
 * i's first element: it is added to argmin/argmax's index. */
tc_status tc_redukcija_combine(const tc_redukcija_plan *plan, const void *parts, const int64_t *first, int count,
                               void *out);
/* The same fold on the device, queued on stream: parts, first (NULL unless the operator is arg) and
 * out (TC_REDUKCIJA_OUT_BYTES) in device memory; out gets tc_redukcija_combine's bytes. */
tc_status tc_redukcija_combine_device(const tc_redukcija_plan *plan, const void *parts, const int64_t *first, int count,
                                      void *out, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
