// The shared part of the C ABI: program handles, the argument check every plan makes first,
// kernel attributes, the timing gate and status texts. Nothing here names a program.
#include "runtime/common.cuh"
#include <cstdlib>
#include <cstring>
#include <cuda/atomic>

namespace {

// The timing gate. Timing a short kernel between two events on an idle stream would also time
// the host's launch of it (the start event fires at once, the kernel arrives microseconds
// later). A kernel queued first keeps the stream busy while the host queues the start event, the
// work and the stop event: for at least min_ns (the device's state before a timed run is the same
// every run), and until the host opens the gate (gate[0], host memory mapped for the device) once
// it has queued all of it, so that a host that is late (descheduled, or stalled in the driver)
// cannot stretch the time between the events (a fixed delay alone would let any longer stall
// into the time). After max_ns it stops waiting and says so in gate[1].
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
    const char *emulate = std::getenv("TECAJ_EMULATE");  // (a profile replaces every figure)
    if (emulate && *emulate) return tc_device_profile(emulate, out);
    *out = tc_device{};
    int dev = 0, v = 0;
    TC_TRY(cudaGetDevice(&dev));
    const auto get = [dev](int &to, cudaDeviceAttr a) { return cudaDeviceGetAttribute(&to, a, dev); };
    const auto get_size = [dev, &v](size_t &to, cudaDeviceAttr a) {
        const cudaError_t e = cudaDeviceGetAttribute(&v, a, dev);
        to = size_t(v);
        return e;
    };
    TC_TRY(get(out->multiprocessors, cudaDevAttrMultiProcessorCount));
    TC_TRY(get(out->max_threads_per_multiprocessor, cudaDevAttrMaxThreadsPerMultiProcessor));
    TC_TRY(get(out->max_blocks_per_multiprocessor, cudaDevAttrMaxBlocksPerMultiprocessor));
    TC_TRY(get(out->max_threads_per_block, cudaDevAttrMaxThreadsPerBlock));
    TC_TRY(get(out->registers_per_multiprocessor, cudaDevAttrMaxRegistersPerMultiprocessor));
    TC_TRY(get(out->max_grid_x, cudaDevAttrMaxGridDimX));
    TC_TRY(get(out->max_grid_y, cudaDevAttrMaxGridDimY));
    TC_TRY(get_size(out->shared_per_multiprocessor, cudaDevAttrMaxSharedMemoryPerMultiprocessor));
    TC_TRY(get_size(out->shared_per_block, cudaDevAttrMaxSharedMemoryPerBlock));
    TC_TRY(get_size(out->shared_per_block_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin));
    TC_TRY(get_size(out->l2_bytes, cudaDevAttrL2CacheSize));
    // (a device that cannot say its memory clock or bus width leaves both 0: plans then assume
    // the most any card needs in flight, tc::in_flight_per_sm)
    int clock_khz = 0, bus_bits = 0;
    if (get(clock_khz, cudaDevAttrMemoryClockRate) != cudaSuccess || get(bus_bits, cudaDevAttrGlobalMemoryBusWidth) != cudaSuccess) {
        (void)cudaGetLastError();
        clock_khz = bus_bits = 0;
    }
    tc::set_memory_system(*out, clock_khz, bus_bits);
    TC_TRY(get(out->compute_major, cudaDevAttrComputeCapabilityMajor));
    TC_TRY(get(out->compute_minor, cudaDevAttrComputeCapabilityMinor));
    TC_TRY(get(v, cudaDevAttrCooperativeLaunch));
    out->no_cooperative_launch = v == 0;
    return TC_OK;
}

tc_status tc_select_device(int d) {
    TC_TRY(cudaSetDevice(d));
    return TC_OK;
}

// The profiles of TECAJ_EMULATE, from the vendors' published figures (CUDA C++ Programming
// Guide, compute capabilities table; the GPUs' datasheets for SMs and L2). Grid limits are CUDA's.
namespace {
constexpr size_t KiB = 1024, MiB = 1024 * KiB;
struct Profile {
    const char *name;
    int sms, threads_per_sm, blocks_per_sm;
    size_t shared_per_sm, shared_optin, l2;
    int major, minor;
    int memory_clock_khz, bus_bits;  // as cudaDevAttrMemoryClockRate and cudaDevAttrGlobalMemoryBusWidth read
};
const Profile kProfiles[] = {
    {"t4", 40, 1024, 16, 64 * KiB, 64 * KiB, 4 * MiB, 7, 5, 5001000, 256},
    {"rtx3060", 28, 1536, 16, 100 * KiB, 99 * KiB, 3 * MiB, 8, 6, 7501000, 192},
    {"rtx4090", 128, 1536, 24, 100 * KiB, 99 * KiB, 72 * MiB, 8, 9, 10501000, 384},
    {"a100", 108, 2048, 32, 164 * KiB, 163 * KiB, 40 * MiB, 8, 0, 1215000, 5120},
    {"h200", 132, 2048, 32, 228 * KiB, 227 * KiB, 50 * MiB, 9, 0, 3201000, 6016},
};
}  // namespace

const char *tc_device_profile_name(int i) {
    return i >= 0 && i < int(sizeof kProfiles / sizeof kProfiles[0]) ? kProfiles[i].name : nullptr;
}

tc_status tc_device_profile(const char *name, tc_device *out) {
    if (!name || !out) return TC_BAD_ARGUMENT;
    for (const Profile &p : kProfiles) {
        if (std::strcmp(p.name, name) != 0) continue;
        *out = tc_device{p.sms, p.threads_per_sm, p.blocks_per_sm, 1024, 65536, 0x7fffffff, 65535,
                         p.shared_per_sm, 48 * KiB, p.shared_optin, p.l2, 0.0, 0, p.major, p.minor, 0, {}};
        tc::set_memory_system(*out, p.memory_clock_khz, p.bus_bits);
        std::strncpy(out->profile, p.name, sizeof out->profile - 1);
        return TC_OK;
    }
    return TC_BAD_ARGUMENT;
}

tc_status tc_check_request(const tc_program *p, const tc_request *r, const tc_device *d, int default_threads,
                           tc_launch *out) {
    if (!p || !r || !d || !out || r->variant < 0 || r->variant >= p->count) return TC_BAD_ARGUMENT;
    if (r->n < 1 || r->threads < 0 || r->threads > 1024 || r->threads % 32 != 0 || r->blocks < 0) return TC_BAD_ARGUMENT;
    if (d->multiprocessors < 1 || d->max_threads_per_multiprocessor < 32 || d->max_blocks_per_multiprocessor < 1 ||
        d->max_threads_per_block < 32 || d->registers_per_multiprocessor < 1 || d->max_grid_x < 1 || d->max_grid_y < 1 ||
        d->shared_per_block < 1 || d->shared_per_block_optin < d->shared_per_block || d->shared_per_multiprocessor < 1)
        return TC_BAD_ARGUMENT;
    const int flags = p->variants[r->variant].flags;
    const int threads = r->threads == 0 ? default_threads : r->threads;
    if (threads > d->max_threads_per_block) return TC_OUTSIDE_DOMAIN;
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
    case TC_UNAVAILABLE: return "TC_UNAVAILABLE";
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
    case TC_UNAVAILABLE: return "the variant's library is not installed (NPP: libnppif.so.13, or TECAJ_NPPIF)";
    default: return s > 0 ? cudaGetErrorString(static_cast<cudaError_t>(s)) : "unknown status";
    }
}

}  // extern "C"
