/* tecaj.h: the C ABI of the course's CUDA kernels (libtecaj.a).
 *
 * The only header Go (through cgo) and the GoogleTest binary include. Plain C types only;
 * no exception crosses it. Every function returns a tc_status: 0 is success, a positive
 * value is the cudaError_t the CUDA runtime reported, a negative value is one of the
 * project's own codes below.
 *
 * A run is two steps. tc_plan() is pure host code (it needs no GPU): it checks that the
 * request lies in the variant's domain, resolves threads and blocks, and says how many
 * floats the variant writes, how much scratch memory it needs and how many bytes it must
 * move. The caller allocates (nothing here allocates behind its back) and calls the
 * program's run function with the plan. Launches are asynchronous on the given stream;
 * launch errors are returned, execution errors surface at the caller's next sync.
 */
#ifndef TECAJ_H
#define TECAJ_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int tc_status;
enum {
    TC_OK = 0,
    TC_OUTSIDE_DOMAIN = -1, /* the request lies outside the variant's domain (see tc_variant.domain) */
    TC_BAD_ARGUMENT = -2,   /* an argument no variant accepts: n < 1, threads not a multiple of 32 or > 1024, unknown variant */
};

typedef enum { TC_RAZLIKA = 0, TC_RAZDALJA = 1, TC_UREJANJE = 2, TC_PROGRAM_COUNT = 3 } tc_program;

/* What a variant writes to its output buffer. */
typedef enum {
    TC_OUT_ELEMENTS = 0, /* n floats: one per element (razlika's c, razdalja g's squares) */
    TC_OUT_PARTIALS = 1, /* plan.blocks floats: one partial sum per block, summed by the host */
    TC_OUT_SCALAR = 2,   /* 1 float: the finished sum of squares */
} tc_output;

/* Flags of a variant. */
enum {
    TC_MANAGED = 1, /* the lesson is unified (managed) memory: the caller allocates a, b, c with cudaMallocManaged */
};

/* One row of a program's variant table; -list, -info, the tests and the benchmark read it. */
typedef struct {
    const char *name;    /* the lecture's name, the CLI's -variant */
    const char *summary; /* one line: what the variant shows */
    const char *domain;  /* where it is correct, and what to use outside it */
    const char *bytes;   /* the bytes it must move, as a formula of n */
    tc_output output;
    int flags;
    int kernel_count; /* kernels for -info (tc_kernel_attributes); 0 for a library baseline */
} tc_variant;

/* The device, for plans: from tc_device_describe(), or filled by hand in tests. */
typedef struct {
    int multiprocessors;
    int max_threads_per_multiprocessor;
    int max_grid_x;
} tc_device;

/* A resolved launch. tc_plan fills every field. */
typedef struct {
    int variant;
    int64_t n;
    int threads;          /* per block */
    int blocks;           /* of the first (or only) kernel */
    int64_t out_count;    /* floats written to out */
    size_t scratch_bytes; /* device scratch the run needs; zero-fill it once when allocated, runs leave it zeroed */
    double bytes_moved;   /* bytes the variant must move through device memory, for GB/s */
    int64_t accumulation_depth; /* razdalja: most float32 additions one term goes through (for the error bound) */
    int64_t batch;        /* urejanje: independent arrays of n keys */
    int64_t padded;       /* urejanje: each array's length in the network (the next power of two >= n) */
    int pairs;            /* urejanje: key-value pairs */
    int launches;         /* urejanje: kernel launches one sort makes */
} tc_plan;

typedef struct {
    const char *kernel; /* the kernel's name in the source */
    int registers;
    size_t static_shared_bytes;
    size_t local_bytes;
    size_t const_bytes;
    int max_threads_per_block;
} tc_kernel_info;

int tc_variant_count(tc_program program);
/* NULL when i is out of range. */
const tc_variant *tc_variant_at(tc_program program, int i);
/* The index of the named variant, or -1. */
int tc_variant_find(tc_program program, const char *name);

/* Reads the current device's figures (cudaDeviceGetAttribute). */
tc_status tc_device_describe(tc_device *out);

/* threads and blocks: 0 asks for the variant's default. */
tc_status tc_plan_launch(tc_program program, int variant, int64_t n, int threads, int blocks,
                         const tc_device *device, tc_plan *out);

/* cudaFuncGetAttributes of the variant's kernel k (0 <= k < kernel_count). */
tc_status tc_kernel_attributes(tc_program program, int variant, int k, tc_kernel_info *out);

/* razlika: c[i] = a[i] - b[i], i < n. */
tc_status tc_razlika_run(const tc_plan *plan, const float *a, const float *b, float *c, cudaStream_t stream);

/* razdalja: the device part of dist = sqrt(sum (a[i]-b[i])^2). out receives plan.out_count
 * floats as plan's variant's tc_output says; scratch holds plan.scratch_bytes. */
tc_status tc_razdalja_run(const tc_plan *plan, const float *a, const float *b, float *out, void *scratch,
                          cudaStream_t stream);

/* Host part of razdalja: the sum of squares from the plan.out_count floats copied back from out
 * (summed in float64 for TC_OUT_ELEMENTS and TC_OUT_PARTIALS; out[0] for TC_OUT_SCALAR). */
double tc_razdalja_finish(const tc_plan *plan, const float *out_on_host);
/* The derived relative error bound of dist = sqrt(finish) against an exact (float64) reference,
 * for finite inputs; see razdalja.cu for the derivation. */
double tc_razdalja_tolerance(const tc_plan *plan);

/* urejanje: bitonic sort of batch arrays of n 32-bit keys each, ascending or descending, keys
 * only or with uint32 values. Floats: -0.0 and +0.0 compare equal, NaNs go last (ascending; first
 * descending: descending is the exact reverse) and come out as the canonical NaN. */
typedef enum { TC_KEY_FLOAT32 = 0, TC_KEY_INT32 = 1, TC_KEY_UINT32 = 2 } tc_key_type;
/* threads: a power of two from 32 to 1024 (0 = the variant's default). */
tc_status tc_urejanje_plan(int variant, int64_t n, int64_t batch, int pairs, int threads, const tc_device *device,
                           tc_plan *out);
/* keys_in/keys_out: batch*n keys (float, int32_t or uint32_t); values_in may be NULL (then each
 * value is its key's index within its array: the result is also an argsort); values_out is
 * required with pairs and ignored without. keys_out may equal keys_in. */
tc_status tc_urejanje_run(const tc_plan *plan, tc_key_type type, int descending, const void *keys_in,
                          const uint32_t *values_in, void *keys_out, uint32_t *values_out, void *scratch,
                          cudaStream_t stream);

/* Keeps the stream busy for the given time: queued before a timing event, it lets the event
 * time the work that follows on the device rather than the host's launch of it. */
tc_status tc_stream_delay(unsigned microseconds, cudaStream_t stream);

/* Names and texts for any tc_status. */
const char *tc_status_name(tc_status s);
const char *tc_status_string(tc_status s);

#ifdef __cplusplus
}
#endif
#endif
