/* prefiks: prefix sums (scans) of a vector (cuda/prefiks/): inclusive or exclusive, of sum,
 * max or min, over int32 (sums wrap as two's complement, as CUB and C do) or float32 elements,
 * plain or segmented by head flags (flag 1 starts a segment; position 0 always does). Floats: NaN
 * and Inf propagate from their position onward, only within their segment. Exclusive results
 * are computed directly (out[i] combines the elements before i; a segment's head gets the
 * identity), never by subtracting. */
#ifndef TECAJ_PREFIKS_H
#define TECAJ_PREFIKS_H
#include "../tecaj.h"
#ifdef __cplusplus
extern "C" {
#endif

const tc_program *tc_prefiks_program(void);

/* Operators: TC_SUM, TC_MIN, TC_MAX. Types: TC_FLOAT32, TC_INT32. */

typedef struct {
    tc_request base; /* base.n elements */
    tc_op op;
    tc_dtype type;
    int exclusive;
    int segmented; /* head flags (uint8, one per element) come with the run */
} tc_prefiks_request;

typedef struct {
    tc_launch launch; /* out_count = n */
    tc_op op;
    tc_dtype type;
    int exclusive, segmented;
    int levels;     /* grid, co, seg: the levels of block totals scanned recursively */
    int64_t depth;  /* the most operations one output goes through (the float error bound's) */
    int rows;       /* best: rows of 128 elements a warp (a tile is 1024 x rows) */
    int64_t ahead;  /* best: how many tiles ahead a tile prefetches into L2 (from the memory system; 0: none) */
} tc_prefiks_plan;

tc_status tc_prefiks_make_plan(const tc_prefiks_request *request, const tc_device *device, tc_prefiks_plan *out);
/* in, out: n 4-byte elements (out may not alias in); flags: n bytes (segmented only; NULL
 * otherwise); scratch: plan.launch.scratch_bytes. */
tc_status tc_prefiks_run(const tc_prefiks_plan *plan, const void *in, const uint8_t *flags, void *out, void *scratch,
                         cudaStream_t stream);
/* The bound on |out[i] - exact| for float sums, given prefix_abs = sum |x_j| over the elements
 * that out[i] combines: gamma(depth) * prefix_abs (Higham); 0 where the result must be exact. */
double tc_prefiks_tolerance(const tc_prefiks_plan *plan, double prefix_abs);

/* Several GPUs, each scanning one contiguous slice with a best plan (its n the slice's). Each
 * slice but the last first reduces its input to its carry, 16 bytes: its total since its last
 * head (the 4-byte value), whether it has a head (int32), padding. The carries are gathered in
 * GPU order, and each slice's scan starts from those before it: one pass over the outputs. */
#define TC_PREFIKS_CARRY_BYTES 16
#define TC_PREFIKS_CARRY_WORK_BYTES 8192 /* device memory carry_out works in */
/* Writes the slice's carry (TC_PREFIKS_CARRY_BYTES of device memory) from its input and flags. */
tc_status tc_prefiks_carry_out(const tc_prefiks_plan *plan, const void *in, const uint8_t *flags, void *work,
                               void *carry, cudaStream_t stream);
/* tc_prefiks_run for slice rank of count: the slice's scan starting from the carries before it,
 * folded in GPU order by the scan itself (one with a head restarts the fold; rank 0: tc_prefiks_run). */
tc_status tc_prefiks_run_after(const tc_prefiks_plan *plan, const void *in, const uint8_t *flags, void *out,
                               void *scratch, const void *carries, int count, int rank, cudaStream_t stream);
/* The most operations a carry's value goes through (for the tolerance, with the scan's depth). */
int64_t tc_prefiks_carry_depth(const tc_prefiks_plan *plan);

#ifdef __cplusplus
}
#endif
#endif
