/* tecaj.h: the C ABI of the course's CUDA kernels (libtecaj.a).
 *
 * The only header Go (through cgo) and the GoogleTest binary include. Plain C types only; no
 * exception crosses it. Every function returns a tc_status: 0 is success, a positive value is
 * the cudaError_t the CUDA runtime reported, a negative value is one of the project's own codes.
 *
 * This header is the part every program shares. Every program P has its own header,
 * cuda/include/tecaj/P.h (which includes this one), with the same set of names:
 *   tc_P_program()                  an opaque handle: its variant table and kernel attributes
 *   tc_P_request                    what the caller asks: tc_request first, then P's own fields
 *   tc_P_plan                       a resolved launch: tc_launch first, then P's own fields
 *   tc_P_make_plan(request, device, plan)   pure host code, needs no GPU: checks the arguments
 *                                   (tc_check_request's rules), then the variant's domain,
 *                                   resolves threads and blocks, counts scratch and bytes
 *   tc_P_run(plan, buffers..., scratch, stream)   launches on the stream
 * The caller allocates everything (nothing here allocates behind its back, except where the
 * lesson is about it: managed memory, TC_MANAGED); it zero-fills plan.launch.scratch_bytes of
 * scratch once, and every run leaves the scratch reusable. Launches are asynchronous; launch
 * errors are returned, execution errors surface at the caller's next synchronisation.
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
    TC_BAD_ARGUMENT = -2,   /* an argument no variant accepts: n < 1, threads outside 32..1024 or not a
                               multiple of 32, unknown variant, a null pointer */
    TC_UNAVAILABLE = -3,    /* a library variant whose library is not installed (NPP, loaded at run time) */
};

/* One vocabulary for every program: the element types and the operators (each program takes the
 * ones its domain names). Go mirrors them once (internal/gpu/vocabulary.go). */
typedef enum {
    TC_FLOAT32 = 0,
    TC_FLOAT64 = 1,
    TC_INT32 = 2,
    TC_UINT32 = 3,
    TC_UINT8 = 4,
    TC_INT64 = 5, /* (an accumulator only: int32 sums) */
} tc_dtype;
typedef enum {
    TC_SUM = 0,
    TC_MIN = 1,
    TC_MAX = 2,
    TC_MEAN = 3,
    TC_NORM = 4,
    TC_DOT = 5,
    TC_ARGMIN = 6,
    TC_ARGMAX = 7,
} tc_op;

/* Flags of a variant. */
enum {
    TC_MANAGED = 1,         /* the lesson is unified (managed) memory: the caller allocates with cudaMallocManaged */
    TC_POW2_THREADS = 2,    /* threads must be a power of two (the lesson halves the block) */
    TC_OWN_GRID = 4,        /* the variant sizes its own grid: a request with blocks != 0 is outside its domain */
    TC_LIBRARY = 8,         /* a library baseline (CUB): its kernels are the library's, none are listed */
    TC_COUNTER_EXAMPLE = 16 /* the lecture's counter-example: it runs, and is expected to be wrong */
};

/* A kernel a variant can launch: its name (with the instantiation) and the function, for
 * cudaFuncGetAttributes and for tests that match launches against the list. */
typedef struct {
    const char *name;
    const void *function;
} tc_kernel;

/* One row of a program's variant table; -list, -info, the tests and the benchmark read it. */
typedef struct {
    const char *name;    /* the lecture's name, the CLI's -variant */
    const char *summary; /* one line: what the variant shows */
    const char *domain;  /* where it is correct, and what to use outside it */
    const char *bytes;   /* the bytes it must move, as a formula of n */
    int flags;
    const tc_kernel *kernels; /* every kernel (and instantiation) a run of it can launch */
    int kernel_count;
} tc_variant;

/* A program: opaque, from tc_P_program(). */
typedef struct tc_program tc_program;

const char *tc_program_name(const tc_program *program);
/* What the program's items are called (elements, keys, pixels), for rates. */
const char *tc_program_unit(const tc_program *program);
int tc_variant_count(const tc_program *program);
/* NULL when i is out of range. */
const tc_variant *tc_variant_at(const tc_program *program, int i);
/* The index of the named variant, or -1. */
int tc_variant_find(const tc_program *program, const char *name);

typedef struct {
    const char *kernel; /* the kernel's name, with its instantiation */
    int registers;
    size_t static_shared_bytes;
    size_t local_bytes;
    size_t const_bytes;
    int max_threads_per_block;
} tc_kernel_info;

/* cudaFuncGetAttributes of kernel k (0 <= k < kernel_count) of a variant. */
tc_status tc_kernel_attributes(const tc_program *program, int variant, int k, tc_kernel_info *out);

/* The device, for plans: every figure a kernel choice depends on. From tc_device_describe(), from
 * a profile (tc_device_profile), or filled by hand in tests. No plan holds a figure of its own. */
typedef struct {
    int multiprocessors;
    int max_threads_per_multiprocessor;
    int max_blocks_per_multiprocessor;
    int max_threads_per_block;
    int registers_per_multiprocessor;     /* 32-bit registers */
    int max_grid_x, max_grid_y;
    size_t shared_per_multiprocessor;     /* bytes */
    size_t shared_per_block;              /* without opting in (48 KiB on every CUDA GPU so far) */
    size_t shared_per_block_optin;        /* with cudaFuncAttributeMaxDynamicSharedMemorySize */
    size_t l2_bytes;
    /* The memory system, for plans that must keep it busy: the peak bandwidth (bytes/s: the memory
     * clock x the bus width x 2 edges; a copy reaches less: BENCHMARKS has how much), and the bytes
     * each SM must keep in flight to reach it (Little's law: the bandwidth x the latency of a loaded
     * memory system, TC_LOADED_LATENCY_NS, over the SMs). bench/memory_system measures both. */
    double memory_bandwidth;
    size_t bytes_in_flight_per_sm;
    int compute_major, compute_minor;
    int no_cooperative_launch; /* 1 where cudaDevAttrCooperativeLaunch is 0 (0 in a struct left zeroed) */
    char profile[16]; /* the emulated profile's name (TECAJ_EMULATE), "" for the device itself */
} tc_device;

/* The latency of a loaded memory system that bytes_in_flight_per_sm assumes: a read's round trip
 * while the memory is near its peak (bench/memory_system: Little's law at the knee). */
#define TC_LOADED_LATENCY_NS 1000

/* Reads the current device's figures (cudaDeviceGetAttribute). With TECAJ_EMULATE=NAME in the
 * environment, the figures are profile NAME's instead (see tc_device_profile): every plan is then
 * made for that GPU, and its kernels run under those plans on the device that is there. An
 * unknown NAME gives TC_BAD_ARGUMENT. */
tc_status tc_device_describe(tc_device *out);

/* Makes CUDA device d current on the calling thread for the library's launches (several GPUs:
 * one thread a device). */
tc_status tc_select_device(int d);

/* Another GPU's limits from its vendor's published figures, by name: "t4" (sm_75), "rtx3060"
 * (sm_86), "rtx4090" (sm_89), "a100" (sm_80), "h200" (sm_90: the H100's processor with
 * faster memory). i-th name by tc_device_profile_name (NULL past the last). Needs no GPU. */
tc_status tc_device_profile(const char *name, tc_device *out);
const char *tc_device_profile_name(int i);

/* The part of every request that every program shares. threads and blocks: 0 asks for the
 * variant's choice. */
typedef struct {
    int variant;
    int64_t n; /* the program's size: elements, or keys in one array (see its header) */
    int threads;
    int blocks;
} tc_request;

/* The launch header every plan begins with; the shared run loop reads only this. */
typedef struct {
    int variant;
    int64_t n;
    int threads;          /* per block */
    int blocks;           /* of the first (or only) kernel */
    int launches;         /* kernel launches one run makes (0 for a library baseline: the library decides) */
    int64_t out_count;    /* output elements the run writes */
    int64_t items;        /* items one run processes (elements, keys: n x batch), for the rate column */
    size_t scratch_bytes; /* device scratch the run needs; zero-fill it once, runs leave it reusable */
    double bytes_moved;   /* a lower bound of the bytes the run moves through device memory (GB/s); 0: not counted */
    size_t shared_bytes;  /* the most dynamic shared memory one of its launches asks for */
} tc_launch;

/* The argument check every plan function makes first: a known variant, n >= 1, threads 0 or a
 * multiple of 32 in 32..1024 and at most the device's max_threads_per_block (a power of two where
 * the variant says TC_POW2_THREADS), blocks 0..max_grid_x (0 where it says TC_OWN_GRID: otherwise TC_OUTSIDE_DOMAIN), a sane device.
 * Fills the header's variant, n, threads (default_threads where 0) and blocks. */
tc_status tc_check_request(const tc_program *program, const tc_request *request, const tc_device *device,
                           int default_threads, tc_launch *out);

/* The timing gate: keeps the stream busy for at least min_microseconds and until the host writes
 * a nonzero word to gate[0], so that the work queued behind it (a start event, the timed work, a
 * stop event) starts only once the host has queued all of it, and the events time the device's
 * work rather than the host's launches, however late they come. gate: two words of host memory
 * mapped for the device (cudaHostAllocMapped), both zero when queued. After max_microseconds the
 * gate stops waiting and writes 1 to gate[1] (the host then knows the time is not the work's). */
tc_status tc_stream_gate(unsigned *gate, unsigned min_microseconds, unsigned max_microseconds, cudaStream_t stream);

/* Names and texts for any tc_status. */
const char *tc_status_name(tc_status s);
const char *tc_status_string(tc_status s);

#ifdef __cplusplus
}
#endif

#endif
