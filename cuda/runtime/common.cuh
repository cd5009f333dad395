// Shared pieces of the programs: the program handle behind the C ABI, the argument check every
// plan makes first, launch planning and error checks.
#pragma once
#include "tecaj.h"
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdint>

// A program: what its tc_P_program() hands out.
struct tc_program {
    const char *name;
    const char *unit; // what its items are called: elements, keys, pixels
    const tc_variant *variants;
    int count;
};

namespace tc {

// A variant table's kernel list, from a function (or an instantiation) and its name.
template <typename F>
tc_kernel kernel(const char *name, F *function) {
    return tc_kernel{name, reinterpret_cast<const void *>(function)};
}
// The kernels field of a variant row: the list and its length (derived, never written by hand).
#define TC_KERNELS(list) list, int(sizeof(list) / sizeof((list)[0]))

inline tc_status status(cudaError_t e) { return static_cast<tc_status>(e); }
#define TC_TRY(call)                                              \
    do {                                                          \
        cudaError_t tc_e_ = (call);                               \
        if (tc_e_ != cudaSuccess) return ::tc::status(tc_e_);     \
    } while (0)
#define TC_TRY_STATUS(call)                     \
    do {                                        \
        const tc_status tc_s_ = (call);         \
        if (tc_s_ != TC_OK) return tc_s_;       \
    } while (0)
// Checks the launch just made (configuration errors surface here).
#define TC_LAUNCHED() TC_TRY(cudaGetLastError())

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
// A run's launches, counted through the same code by the plan's dry run and by the run itself,
// so that a plan's launch count and grid are what its run does: next() counts a launch (and the
// grid of the first that sets it) and says whether to make it.
struct LaunchCounter {
    bool count_only;
    int count = 0;
    unsigned grid = 0;
    bool next(unsigned blocks, bool sets_grid = true) {
        if (sets_grid && grid == 0) grid = blocks;
        ++count;
        return !count_only;
    }
};
// Makes a launch when `go` (a LaunchCounter's next()) says so, and checks it.
#define TC_COUNTED_LAUNCH(go, ...) \
    do {                           \
        if (go) {                  \
            __VA_ARGS__;           \
            TC_LAUNCHED();         \
        }                          \
    } while (0)

// Scratch slices start 256-byte aligned (as cudaMalloc's do).
inline size_t align256(size_t x) { return (x + 255) & ~size_t(255); }

// A type carried as a value: a dispatch over types and operators calls a generic lambda with
// Tag<T>{} and reads decltype(tag)::type.
template <typename T>
struct Tag {
    using type = T;
};
inline int ceil_log2(int64_t x) {
    int k = 0;
    while ((int64_t(1) << k) < x) ++k;
    return k;
}

// The largest power of two not above x (x >= 1): thresholds that scale with the device where the
// sizes they compare are powers of two.
inline int64_t floor_pow2(int64_t x) {
    int64_t p = 1;
    while (p <= x / 2) p *= 2;
    return p;
}

// Blocks of `threads` one SM of the device holds at `registers` a thread (0: not counted) and
// `shared` bytes of shared memory a block, by the device's figures alone (no GPU): its threads,
// its blocks, its registers by warp in units of 256 (each of the 4 schedulers holding a quarter),
// and its shared memory in units of 128 bytes plus the 1 KiB the system reserves per block from
// sm_80 on. 0 where not one fits.
inline int64_t blocks_per_sm(const tc_device &dev, int threads, int registers, size_t shared) {
    const int warps = (threads + 31) / 32;
    int64_t per_sm = dev.max_threads_per_multiprocessor / (32 * warps);
    if (per_sm > dev.max_blocks_per_multiprocessor) per_sm = dev.max_blocks_per_multiprocessor;
    const int64_t warp_registers = (int64_t(registers) * 32 + 255) / 256 * 256;
    if (warp_registers > 0) per_sm = std::min(per_sm, 4 * (dev.registers_per_multiprocessor / 4 / warp_registers) / warps);
    const size_t reserved = dev.compute_major >= 8 ? 1024 : 0, block = (shared + 127) / 128 * 128 + reserved;
    return block > 0 ? std::min(per_sm, int64_t(dev.shared_per_multiprocessor / block)) : per_sm;
}

// A kernel's registers a thread (cudaFuncGetAttributes), 0 where the runtime cannot say (no GPU,
// or no image of the kernel for this one).
inline int kernel_registers(const void *kernel) {
    cudaFuncAttributes a;
    if (cudaFuncGetAttributes(&a, kernel) == cudaSuccess) return a.numRegs;
    (void)cudaGetLastError();
    return 0;
}

// Blocks of `threads` (with `shared` bytes of dynamic shared memory) one SM of the device holds.
// The device itself: the runtime's occupancy query. An emulated device (TECAJ_EMULATE): the
// same rules (blocks_per_sm) from the kernel's registers and static shared memory against the
// profile's limits. Without the kernel, or where the runtime cannot say (a plan made without a
// GPU): threads and blocks alone.
inline int resident_blocks(const tc_device &dev, int threads, const void *kernel = nullptr, size_t shared = 0) {
    int64_t per_sm = blocks_per_sm(dev, threads, 0, 0);
    cudaFuncAttributes a;
    int n = 0;
    if (kernel && dev.profile[0] == 0) {
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, threads, shared) == cudaSuccess && n >= 1) return n;
        (void)cudaGetLastError();
    } else if (kernel && cudaFuncGetAttributes(&a, kernel) == cudaSuccess) {
        per_sm = blocks_per_sm(dev, threads, a.numRegs, a.sharedSizeBytes + shared);
    } else if (kernel) {
        (void)cudaGetLastError();
    }
    return per_sm < 1 ? 1 : int(per_sm);
}

// Blocks that fill the device once (one resident wave, by resident_blocks), at most enough to
// cover n with `per_thread` elements a thread: the grid a grid-stride kernel wants.
inline int wave_blocks(const tc_device &dev, int threads, int64_t n, int64_t per_thread = 1,
                       const void *kernel = nullptr, size_t shared = 0) {
    const int64_t wave = int64_t(dev.multiprocessors) * resident_blocks(dev, threads, kernel, shared);
    const int64_t need = ceil_div(n, int64_t(threads) * per_thread);
    const int64_t b = need < wave ? need : wave;
    return int(b < 1 ? 1 : b);
}

// The most threads an SM of the architecture being compiled holds (sm_75: 1024; sm_86, 87, 89,
// 101/110 and 120: 1536; the others 2048), and the blocks of `threads` a launch bound may ask of
// it: at most `blocks`, at most what fit (ptxas refuses a bound past the SM). For launch bounds
// only: the host's pass reads 2048, whatever the GPU (a plan asks the device: blocks_per_sm).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
constexpr int kArchThreadsPerSM = 1024;
#elif defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || __CUDA_ARCH__ == 890 || \
                                 __CUDA_ARCH__ == 1010 || __CUDA_ARCH__ >= 1100)
constexpr int kArchThreadsPerSM = 1536;
#else
constexpr int kArchThreadsPerSM = 2048;
#endif
constexpr int bound_blocks(int threads, int blocks) {
    return blocks < kArchThreadsPerSM / threads ? blocks : kArchThreadsPerSM / threads;
}

// The memory system from its clock (kHz, as cudaDevAttrMemoryClockRate reads it) and bus width:
// the peak bandwidth (both edges), and by Little's law the bytes an SM keeps in flight to reach it.
inline void set_memory_system(tc_device &d, int clock_khz, int bus_bits) {
    d.memory_bandwidth = 2.0 * double(clock_khz) * 1e3 * double(bus_bits) / 8.0;
    d.bytes_in_flight_per_sm =
        d.multiprocessors > 0 ? size_t(d.memory_bandwidth * TC_LOADED_LATENCY_NS * 1e-9 / d.multiprocessors) : 0;
}

// The bytes an SM keeps in flight to reach the memory's peak; a device that does not report its
// memory (a clock or bus width of 0) is taken as needing the most any card here needs (BENCHMARKS:
// the memory system), so a plan errs towards more in flight.
constexpr double kUnknownInFlightPerSM = 32768.0;
inline double in_flight_per_sm(const tc_device &d) {
    return d.bytes_in_flight_per_sm ? double(d.bytes_in_flight_per_sm) : kUnknownInFlightPerSM;
}

// How many blocks ahead a streaming best prefetches into L2 (tc::prefetch_l2), each block reading
// block_bytes: kPrefetchLead times the bytes the whole memory system keeps in flight, so that the
// prefetches lead the reads by a few round trips whatever the card's bandwidth (BENCHMARKS: the
// scan's distance swept on the H100 and the H200). 0 before sm_90, which has no bulk prefetch.
constexpr double kPrefetchLead = 2.5;
inline int64_t prefetch_ahead(const tc_device &d, double block_bytes) {
    if (d.compute_major < 9) return 0;
    const int64_t ahead = int64_t(kPrefetchLead * in_flight_per_sm(d) * d.multiprocessors / block_bytes + 0.5);
    return ahead < 1 ? 1 : ahead;
}

// A plan function's first lines: the shared argument check into the plan's launch header, the
// rest of the plan zeroed.
template <typename Plan, typename Request>
tc_status begin_plan(const tc_program &program, const Request *request, const tc_device *device,
                     int default_threads, Plan *out) {
    if (!request || !out) return TC_BAD_ARGUMENT;
    *out = Plan{};
    return tc_check_request(&program, &request->base, device, default_threads, &out->launch);
}

}  // namespace tc
