/* razlika: c = a - b on float32 vectors (cuda/razlika.cu). */
#ifndef TECAJ_RAZLIKA_H
#define TECAJ_RAZLIKA_H
#include "../tecaj.h"
#ifdef __cplusplus
extern "C" {
#endif

const tc_program *tc_razlika_program(void);

typedef struct {
    tc_request base;
} tc_razlika_request;

typedef struct {
    tc_launch launch; /* out_count = n floats of c */
} tc_razlika_plan;

tc_status tc_razlika_make_plan(const tc_razlika_request *request, const tc_device *device, tc_razlika_plan *out);
/* c[i] = a[i] - b[i], i < n (managed buffers for a TC_MANAGED variant). */
tc_status tc_razlika_run(const tc_razlika_plan *plan, const float *a, const float *b, float *c, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
