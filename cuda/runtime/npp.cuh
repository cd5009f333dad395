// NPP, loaded at run time (dlopen): konvolucija's library row where the toolkit (or the nvidia-npp
// wheel) has it, and a refused row, not a failed build, where it does not. The few declarations
// are NPP 13's (nppdefs.h, nppi_filtering_functions.h), so no NPP header is needed to build.
#pragma once
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <cstdlib>
#include <mutex>

namespace tc::npp {

struct Size {
    int width, height;
};
struct Point {
    int x, y;
};
enum Border { BORDER_REPLICATE = 2 };
struct StreamContext {  // NppStreamContext
    cudaStream_t stream;
    int device, multiprocessors, max_threads_per_multiprocessor, max_threads_per_block;
    size_t shared_per_block;
    int major, minor;
    unsigned int stream_flags;
    unsigned int workspace;
};
using FilterBorder32f = int (*)(const float *src, int src_step, Size src_size, Point src_offset, float *dst,
                                int dst_step, Size roi, const float *kernel, Size kernel_size, Point anchor, int border,
                                StreamContext ctx);

using FilterBorder8u = int (*)(const unsigned char *src, int src_step, Size src_size, Point src_offset,
                               unsigned char *dst, int dst_step, Size roi, const int *kernel, Size kernel_size,
                               Point anchor, int divisor, int border, StreamContext ctx);

// A function of libnppif, or null where NPP is not installed (the library looked up once).
inline void *symbol(const char *function) {
    static void *const library = [] {
        const char *names[] = {std::getenv("TECAJ_NPPIF"), "libnppif.so.13", "libnppif.so",
                               "/usr/local/cuda/lib64/libnppif.so.13"};
        for (const char *name : names)
            if (name && *name)
                if (void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL)) return h;
        return static_cast<void *>(nullptr);
    }();
    return library ? dlsym(library, function) : nullptr;
}
// nppiFilterBorder_32f_C1R_Ctx and nppiFilterBorder_8u_C1R_Ctx (its integer mask divided by divisor)
inline FilterBorder32f filter_border_32f() {
    static const auto f = reinterpret_cast<FilterBorder32f>(symbol("nppiFilterBorder_32f_C1R_Ctx"));
    return f;
}
inline FilterBorder8u filter_border_8u() {
    static const auto f = reinterpret_cast<FilterBorder8u>(symbol("nppiFilterBorder_8u_C1R_Ctx"));
    return f;
}

// The stream context NPP's _Ctx functions take: the device's figures, read once a device (a
// run is timed, and they do not change), and the stream's.
inline cudaError_t context(cudaStream_t s, StreamContext &c) {
    constexpr int kDevices = 64;
    static StreamContext known[kDevices];
    static std::once_flag read[kDevices];
    static cudaError_t failed[kDevices];
    int device = 0;
    cudaError_t e = cudaGetDevice(&device);
    if (e != cudaSuccess) return e;
    if (device < 0 || device >= kDevices) return cudaErrorInvalidDevice;
    std::call_once(read[device], [device] {
        StreamContext &k = known[device];
        k.device = device;
        const auto get = [&](int &to, cudaDeviceAttr a) { return cudaDeviceGetAttribute(&to, a, device); };
        int shared = 0;
        cudaError_t e;
        if ((e = get(k.multiprocessors, cudaDevAttrMultiProcessorCount)) != cudaSuccess ||
            (e = get(k.max_threads_per_multiprocessor, cudaDevAttrMaxThreadsPerMultiProcessor)) != cudaSuccess ||
            (e = get(k.max_threads_per_block, cudaDevAttrMaxThreadsPerBlock)) != cudaSuccess ||
            (e = get(shared, cudaDevAttrMaxSharedMemoryPerBlock)) != cudaSuccess ||
            (e = get(k.major, cudaDevAttrComputeCapabilityMajor)) != cudaSuccess ||
            (e = get(k.minor, cudaDevAttrComputeCapabilityMinor)) != cudaSuccess)
            failed[device] = e;
        k.shared_per_block = size_t(shared);
    });
    if (failed[device] != cudaSuccess) return failed[device];
    c = known[device];
    c.stream = s;
    return s ? cudaStreamGetFlags(s, &c.stream_flags) : cudaSuccess;
}

}  // namespace tc::npp
