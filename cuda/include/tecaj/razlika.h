/* razlika: c = a - b on float32 vectors (cuda/razlika/). */
#ifndef TECAJ_RAZLIKA_H
#define TECAJ_RAZLIKA_H
#include "../tecaj.h"
#ifdef __cplusplus
extern "C" {
#endif

const tc_program *tc_razlika_program(void);

typedef struct {
    tc_request base;
    /* nonzero: a request past 1's or 3's domain runs as the lecture's failure (the plan's lesson)
     * instead of TC_OUTSIDE_DOMAIN. Variant 1: a block of threads != n threads (named -threads),
     * or of max_threads_per_block where n is larger; variant 3: a grid of blocks*threads < n. */
    int lesson;
} tc_razlika_request;

typedef struct {
    tc_launch launch; /* out_count = n floats of c */
    int lesson;       /* the run is the lecture's failure: c is wrong (written past n, or left unwritten) */
    int64_t reach;    /* the elements of a, b and c the launch indexes (n, or more in a lesson): the
                         caller allocates reach of each and fills c's words past n with guard words */
} tc_razlika_plan;

tc_status tc_razlika_make_plan(const tc_razlika_request *request, const tc_device *device, tc_razlika_plan *out);
/* c[i] = a[i] - b[i], i < n (managed buffers for a TC_MANAGED variant); a, b and c hold plan.reach
 * elements. */
tc_status tc_razlika_run(const tc_razlika_plan *plan, const float *a, const float *b, float *c, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
