// The shared part of the C ABI: program handles, the argument check every plan makes first,
// kernel attributes, the timing gate and status texts. Nothing here names a program.
#include "common.cuh"
#include <cstring>
#include <cuda/atomic>

namespace {

// The timing gate. Timing a short kernel between two events on an idle stream would also time
// the host's launch of it (the start event fires at once, the kernel arrives microseconds
// later). A kernel queued first keeps the stream busy while the host queues the start event, the
// work and the stop event: for at least min_ns (the device's state before a timed run is the same
// every run), and until the host opens the gate (gate[0], host memory mapped for the device) once
// it has queued all of it, so that a host that is late (descheduled, or stalled in the driver)
// cannot stretch the time between the events (a fixed delay of 50 us let any longer stall into
// the time). After max_ns it stops waiting and says so in gate[1].
__global__ void gate_kernel(unsigned *gate, unsigned long long min_ns, unsigned long long max_ns) {
    cuda::atomic_ref<unsigned, cuda::thread_scope_system> open(gate[0]);
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    for (;;) {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        if (now - start >= min_ns && open.load(cuda::memory_order_relaxed) != 0u) return;
        if (now - start >= max_ns) {
            cuda::atomic_ref<unsigned, cuda::thread_scope_system>(gate[1]).store(1u, cuda::memory_order_relaxed);
            return;
        }
        __nanosleep(1000);
    }
}

}  // namespace

extern "C" {

tc_status tc_stream_gate(unsigned *gate, unsigned min_microseconds, unsigned max_microseconds, cudaStream_t stream) {
    if (!gate || max_microseconds < min_microseconds) return TC_BAD_ARGUMENT;
    gate_kernel<<<1, 1, 0, stream>>>(gate, 1000ull * min_microseconds, 1000ull * max_microseconds);
    TC_LAUNCHED();
    return TC_OK;
}

const char *tc_program_name(const tc_program *p) { return p ? p->name : nullptr; }
const char *tc_program_unit(const tc_program *p) { return p ? p->unit : nullptr; }
int tc_variant_count(const tc_program *p) { return p ? p->count : 0; }

const tc_variant *tc_variant_at(const tc_program *p, int i) {
    return (p && i >= 0 && i < p->count) ? &p->variants[i] : nullptr;
}

int tc_variant_find(const tc_program *p, const char *name) {
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

tc_status tc_check_request(const tc_program *p, const tc_request *r, const tc_device *d, int default_threads,
                           tc_launch *out) {
    if (!p || !r || !d || !out || r->variant < 0 || r->variant >= p->count) return TC_BAD_ARGUMENT;
    if (r->n < 1 || r->threads < 0 || r->threads > 1024 || r->threads % 32 != 0 || r->blocks < 0) return TC_BAD_ARGUMENT;
    if (d->multiprocessors < 1 || d->max_threads_per_multiprocessor < 32 || d->max_grid_x < 1) return TC_BAD_ARGUMENT;
    const int flags = p->variants[r->variant].flags;
    const int threads = r->threads == 0 ? default_threads : r->threads;
    if ((flags & TC_POW2_THREADS) && (threads & (threads - 1)) != 0) return TC_BAD_ARGUMENT;
    if (r->blocks > d->max_grid_x || ((flags & TC_OWN_GRID) && r->blocks != 0)) return TC_OUTSIDE_DOMAIN;
    std::memset(out, 0, sizeof *out);
    out->variant = r->variant;
    out->n = r->n;
    out->threads = threads;
    out->blocks = r->blocks;
    out->launches = 1;
    out->items = r->n;
    return TC_OK;
}

tc_status tc_kernel_attributes(const tc_program *p, int variant, int k, tc_kernel_info *out) {
    if (!p || !out || variant < 0 || variant >= p->count || k < 0 || k >= p->variants[variant].kernel_count)
        return TC_BAD_ARGUMENT;
    const tc_kernel &kernel = p->variants[variant].kernels[k];
    cudaFuncAttributes a;
    TC_TRY(cudaFuncGetAttributes(&a, kernel.function));
    out->kernel = kernel.name;
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
    case TC_BAD_ARGUMENT:
        return "invalid argument (n < 1, threads outside 32..1024 or not a multiple of 32 (a power of two where the "
               "variant needs one), unknown variant, or a missing buffer)";
    default: return s > 0 ? cudaGetErrorString(static_cast<cudaError_t>(s)) : "unknown status";
    }
}

}  // extern "C"
