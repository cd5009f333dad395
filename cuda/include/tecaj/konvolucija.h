/* konvolucija: 1-D and 2-D convolution of float32 data with a mask of odd size (cuda/konvolucija/),
 * as the lecture defines it: P[y][x] = sum_j sum_i M[j][i] * N[y - ry + j][x - rx + i], the mask not
 * flipped (image processing's correlation, CNN libraries' convolution). Elements outside the input
 * are 0 (the lecture's ghost elements) or a replica of the nearest edge element. Every tap
 * multiplies, so a NaN or Inf spreads over its footprint, and only there. */
#ifndef TECAJ_KONVOLUCIJA_H
#define TECAJ_KONVOLUCIJA_H
#include "../tecaj.h"
#ifdef __cplusplus
extern "C" {
#endif

const tc_program *tc_konvolucija_program(void);

typedef enum { TC_BORDER_ZERO = 0, TC_BORDER_REPLICATE = 1 } tc_border;
/* The pixels: float32, or uint8 (images: best only, 2-D, square masks of 3, 5 or 7; sums in
 * float32, out rounded to the nearest, ties to even, and clamped to 0..255). */
/* (TC_FLOAT32 or TC_UINT8) */

/* The largest masks: 31 x 31 in 2-D, 63 taps in 1-D. */
#define TC_KONVOLUCIJA_MAX_2D 31
#define TC_KONVOLUCIJA_MAX_1D 63

typedef struct {
    tc_request base;     /* base.n = width x height */
    int dim;             /* 1 or 2 */
    int width, height;   /* the image (1-D: width = n, height = 1) */
    int mask_w, mask_h;  /* odd; 1-D: mask_h = 1 */
    tc_border border;
    int magnitude;       /* 2-D, square masks, best: sqrt(gx^2 + gy^2) of the mask (gx) and its transpose (gy),
                          * as Sobel's gradient magnitude from sobel-x */
    tc_dtype pixel;
    const float *mask;   /* the mask_w x mask_h weights, row-major, in host memory (required): the plan keeps a
                          * copy, the only mask a run uses (best launches with it as a kernel argument; for
                          * 8-bit pixels, whether it is separable or a box is decided on the host from it,
                          * at most 49 taps, as the run launches) */
} tc_konvolucija_request;

typedef struct {
    tc_launch launch;    /* out_count = items = width x height */
    int dim, width, height, mask_w, mask_h;
    tc_border border;
    int magnitude;
    tc_dtype pixel;
    int block_x, block_y; /* the 2-D block's shape (1-D: threads x 1) */
    int grid_y;
    float mask[TC_KONVOLUCIJA_MAX_2D * TC_KONVOLUCIJA_MAX_2D]; /* the request's mask (the rest 0) */
    int npp_divisor; /* npp on uint8: the mask times it is integers (NPP's 8-bit filter), else 0 */
} tc_konvolucija_plan;

tc_status tc_konvolucija_make_plan(const tc_konvolucija_request *request, const tc_device *device,
                                   tc_konvolucija_plan *out);
/* in, out: width x height pixels of the plan's type (TC_FLOAT32: floats; TC_UINT8: bytes),
 * row-major (out may not alias in). The mask is the plan's: best launches with it as a kernel
 * argument; the lecture's variants (g reads it from global memory, c and t from constant memory)
 * and npp have it written to device memory by one small kernel at the start of the run. Those
 * variants keep it in one module-wide array, as the lecture's constant mask is: their runs with
 * different masks must not overlap on different streams. */
tc_status tc_konvolucija_run(const tc_konvolucija_plan *plan, const void *in, void *out, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
