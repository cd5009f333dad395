/* razdalja: dist = sqrt(sum (a[i]-b[i])^2) on float32 vectors (cuda/razdalja/). */
#ifndef TECAJ_RAZDALJA_H
#define TECAJ_RAZDALJA_H
#include "../tecaj.h"
#ifdef __cplusplus
extern "C" {
#endif

const tc_program *tc_razdalja_program(void);

typedef struct {
    tc_request base;
} tc_razdalja_request;

/* What a variant writes to its output buffer. */
typedef enum {
    TC_RAZDALJA_SQUARES = 0,  /* n floats: one square per element (g), summed by the host */
    TC_RAZDALJA_PARTIALS = 1, /* blocks floats: one partial sum per block, summed by the host */
    TC_RAZDALJA_SCALAR = 2,   /* 1 float: the finished sum of squares */
    TC_RAZDALJA_SCALAR64 = 3, /* 2 floats holding one double (out 8-byte aligned): the finished sum of
                               * squares, differences and squares in float64 (best: any finite
                               * float32 inputs, 1e20 or 1e-41, give the right distance) */
} tc_razdalja_output;

typedef struct {
    tc_launch launch;
    tc_razdalja_output output;
    int64_t accumulation_depth; /* the most float32 additions one term goes through (the error bound's) */
} tc_razdalja_plan;

tc_status tc_razdalja_make_plan(const tc_razdalja_request *request, const tc_device *device, tc_razdalja_plan *out);
/* The device part: out receives plan.launch.out_count floats as plan.output says; scratch holds
 * plan.launch.scratch_bytes. */
tc_status tc_razdalja_run(const tc_razdalja_plan *plan, const float *a, const float *b, float *out, void *scratch,
                          cudaStream_t stream);
/* The host part: the sum of squares from the out_count floats copied back (summed in float64
 * for SQUARES and PARTIALS; out[0] for SCALAR; the double in out[0..1] for SCALAR64). */
double tc_razdalja_finish(const tc_razdalja_plan *plan, const float *out_on_host);
/* Several GPUs, on the device, queued on stream: count SCALAR64 results (8 bytes each, in device
 * memory, in GPU order) added left to right in float64 from +0 into out (8-byte aligned: a SCALAR64
 * result). A plan whose output is not SCALAR64 is refused. */
tc_status tc_razdalja_combine_device(const tc_razdalja_plan *plan, const void *parts, int count, float *out,
                                     cudaStream_t stream);
/* The derived relative error bound of dist = sqrt(finish) against an exact (float64) reference,
 * for finite inputs; see cuda/razdalja/ for the derivation. */
double tc_razdalja_tolerance(const tc_razdalja_plan *plan);

#ifdef __cplusplus
}
#endif
#endif
