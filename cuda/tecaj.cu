// The C ABI's dispatch: variant tables, planning and kernel attributes for every program.
#include "common.cuh"
#include <cstring>

namespace {

const tc::Program *program_of(tc_program p) {
    switch (p) {
    case TC_RAZLIKA: return &tc::razlika;
    case TC_RAZDALJA: return &tc::razdalja;
    case TC_UREJANJE: return &tc::urejanje;
    default: return nullptr;
    }
}

// Busy-waits on the device clock. Timing a short kernel between two events on an idle stream
// would also time the host's launch of it (the start event fires at once, the kernel arrives
// microseconds later); a delay queued first keeps the stream busy until the launch is queued.
__global__ void delay_kernel(unsigned long long ns) {
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        __nanosleep(1000);
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
}

}  // namespace

extern "C" {

tc_status tc_stream_delay(unsigned microseconds, cudaStream_t stream) {
    delay_kernel<<<1, 1, 0, stream>>>(1000ull * microseconds);
    TC_LAUNCHED();
    return TC_OK;
}

int tc_variant_count(tc_program program) {
    const tc::Program *p = program_of(program);
    return p ? p->count : 0;
}

const tc_variant *tc_variant_at(tc_program program, int i) {
    const tc::Program *p = program_of(program);
    return (p && i >= 0 && i < p->count) ? &p->variants[i] : nullptr;
}

int tc_variant_find(tc_program program, const char *name) {
    const tc::Program *p = program_of(program);
    if (!p || !name) return -1;
    for (int i = 0; i < p->count; ++i)
        if (std::strcmp(p->variants[i].name, name) == 0) return i;
    return -1;
}

tc_status tc_device_describe(tc_device *out) {
    if (!out) return TC_BAD_ARGUMENT;
    int dev = 0;
    TC_TRY(cudaGetDevice(&dev));
    TC_TRY(cudaDeviceGetAttribute(&out->multiprocessors, cudaDevAttrMultiProcessorCount, dev));
    TC_TRY(cudaDeviceGetAttribute(&out->max_threads_per_multiprocessor, cudaDevAttrMaxThreadsPerMultiProcessor, dev));
    TC_TRY(cudaDeviceGetAttribute(&out->max_grid_x, cudaDevAttrMaxGridDimX, dev));
    return TC_OK;
}

tc_status tc_plan_launch(tc_program program, int variant, int64_t n, int threads, int blocks,
                         const tc_device *device, tc_plan *out) {
    const tc::Program *p = program_of(program);
    if (!p || !device || !out || variant < 0 || variant >= p->count) return TC_BAD_ARGUMENT;
    if (n < 1 || threads < 0 || threads > 1024 || threads % 32 != 0 || blocks < 0) return TC_BAD_ARGUMENT;
    if (device->multiprocessors < 1 || device->max_threads_per_multiprocessor < 32 || device->max_grid_x < 1)
        return TC_BAD_ARGUMENT;
    if (threads == 0) threads = 256;
    if (blocks > device->max_grid_x) return TC_OUTSIDE_DOMAIN;
    std::memset(out, 0, sizeof *out);
    out->variant = variant;
    out->n = n;
    out->threads = threads;
    out->blocks = blocks;
    return p->plan(variant, n, threads, blocks, *device, *out);
}

tc_status tc_kernel_attributes(tc_program program, int variant, int k, tc_kernel_info *out) {
    const tc::Program *p = program_of(program);
    if (!p || !out || variant < 0 || variant >= p->count || k < 0 || k >= p->variants[variant].kernel_count)
        return TC_BAD_ARGUMENT;
    const void *fn = p->kernel(variant, k, &out->kernel);
    cudaFuncAttributes a;
    TC_TRY(cudaFuncGetAttributes(&a, fn));
    out->registers = a.numRegs;
    out->static_shared_bytes = a.sharedSizeBytes;
    out->local_bytes = a.localSizeBytes;
    out->const_bytes = a.constSizeBytes;
    out->max_threads_per_block = a.maxThreadsPerBlock;
    return TC_OK;
}

const char *tc_status_name(tc_status s) {
    switch (s) {
    case TC_OK: return "TC_OK";
    case TC_OUTSIDE_DOMAIN: return "TC_OUTSIDE_DOMAIN";
    case TC_BAD_ARGUMENT: return "TC_BAD_ARGUMENT";
    default: return s > 0 ? cudaGetErrorName(static_cast<cudaError_t>(s)) : "TC_UNKNOWN";
    }
}

const char *tc_status_string(tc_status s) {
    switch (s) {
    case TC_OK: return "no error";
    case TC_OUTSIDE_DOMAIN: return "the request lies outside the variant's domain";
    case TC_BAD_ARGUMENT: return "invalid argument (n < 1, threads not a multiple of 32 in 32..1024, or unknown variant)";
    default: return s > 0 ? cudaGetErrorString(static_cast<cudaError_t>(s)) : "unknown status";
    }
}

}  // extern "C"
