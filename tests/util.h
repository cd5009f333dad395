// Test helpers: GPU availability, device buffers, seeded random inputs, poisoning, the program
// registry and the launch check every program's tests use.
#pragma once
#include "tecaj.h"
#include "runtime/common.cuh"
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace tctest {

// Empty when a GPU is usable; otherwise the reason. The runtime reports a missing driver as an
// insufficient one: without /proc/driver/nvidia there is none, and the reason says so.
inline const std::string &no_gpu_reason() {
    static const std::string reason = [] {
        int count = 0;
        cudaError_t e = cudaGetDeviceCount(&count);
        if (e == cudaErrorInsufficientDriver) {
            std::FILE *f = std::fopen("/proc/driver/nvidia/version", "r");
            if (!f) return std::string("no usable GPU: no NVIDIA driver found (no GPU, or its driver is not installed)");
            std::fclose(f);
        }
        if (e != cudaSuccess)
            return std::string("no usable GPU: ") + cudaGetErrorName(e) + ": " + cudaGetErrorString(e);
        if (count == 0) return std::string("no usable GPU: no CUDA device");
        return std::string();
    }();
    return reason;
}

#define REQUIRE_GPU()                                                       \
    do {                                                                    \
        if (!::tctest::no_gpu_reason().empty()) GTEST_SKIP() << ::tctest::no_gpu_reason(); \
    } while (0)

#define CUDA_OK(call) ASSERT_EQ(cudaSuccess, (call)) << #call
#define TC_OK_(call) ASSERT_EQ(TC_OK, (call)) << #call << ": " << tc_status_name(call)

// A device (or managed) buffer of T, freed on scope exit.
template <typename T>
struct DeviceBuffer {
    T *ptr = nullptr;
    size_t count = 0;
    DeviceBuffer(size_t n, bool managed = false) : count(n) {
        void *p = nullptr;
        const size_t bytes = n * sizeof(T) + 16;  // never 0 bytes, and room for a misaligned view
        cudaError_t e = managed ? cudaMallocManaged(&p, bytes) : cudaMalloc(&p, bytes);
        ptr = e == cudaSuccess ? static_cast<T *>(p) : nullptr;
        if (ptr) cudaMemset(ptr, 0, bytes);
    }
    ~DeviceBuffer() { cudaFree(ptr); }
    DeviceBuffer(const DeviceBuffer &) = delete;
    DeviceBuffer &operator=(const DeviceBuffer &) = delete;
    void upload(const std::vector<T> &h, size_t offset = 0) {
        ASSERT_EQ(cudaSuccess, cudaMemcpy(ptr + offset, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
    }
    std::vector<T> download(size_t n, size_t offset = 0) const {
        std::vector<T> h(n);
        EXPECT_EQ(cudaSuccess, cudaMemcpy(h.data(), ptr + offset, n * sizeof(T), cudaMemcpyDeviceToHost));
        return h;
    }
};

// Uniform in [-1, 1): never all zeros.
inline std::vector<float> random_floats(size_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> v(n);
    for (auto &x : v) x = u(rng);
    return v;
}

// Integers in [-1, 1]: every square is 0, 1 or 4, so every partial sum below 2^24 is exact.
inline std::vector<float> random_small_integers(size_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> u(-1, 1);
    std::vector<float> v(n);
    for (auto &x : v) x = float(u(rng));
    return v;
}

// A quiet NaN with a payload the GPU never produces (its NaNs are 0x7fffffff): an element still
// holding it was not written.
constexpr uint32_t kPoisonBits = 0x7fa5a5a5u;
inline float poison() {
    float f;
    std::memcpy(&f, &kPoisonBits, 4);
    return f;
}
inline bool is_poison(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b == kPoisonBits;
}

inline tc_device device() {
    tc_device d{};
    EXPECT_EQ(TC_OK, tc_device_describe(&d));
    return d;
}

// A made-up H100-like device for plans that need no GPU (sm_90's limits; 132 SMs, 50 MiB of L2).
inline tc_device fake_device() {  // (by name: a new field of tc_device must not shift the others)
    tc_device d{};
    d.multiprocessors = 132, d.max_threads_per_multiprocessor = 2048, d.max_blocks_per_multiprocessor = 32;
    d.max_threads_per_block = 1024, d.registers_per_multiprocessor = 65536, d.max_grid_x = 2147483647, d.max_grid_y = 65535;
    d.shared_per_multiprocessor = 228 * 1024, d.shared_per_block = 48 * 1024, d.shared_per_block_optin = 227 * 1024;
    d.l2_bytes = 50 << 20, d.compute_major = 9, d.compute_minor = 0;
    tc::set_memory_system(d, 2619000, 5120);  // the H100's memory clock (kHz) and bus width (bits)
    return d;
}

// The sizes every variant is tested at. TECAJ_MAX_N (set by the GPU runner for the slow
// compute-sanitizer passes) drops the larger ones.
inline std::vector<int64_t> up_to_max_n(std::vector<int64_t> all) {
    const char *max = std::getenv("TECAJ_MAX_N");
    if (!max) return all;
    std::vector<int64_t> kept;
    for (int64_t n : all)
        if (n <= std::atoll(max)) kept.push_back(n);
    return kept;
}
// The programs under test: each program's test file registers its handle (so that nothing but
// its own files names a program), and the ABI-wide tests go over all of them.
inline std::vector<const tc_program *> &programs() {
    static std::vector<const tc_program *> all;
    return all;
}
inline bool register_program(const tc_program *p) {
    programs().push_back(p);
    return true;
}

// The kernels launch(stream) makes, in order, seen by capturing the stream into a CUDA graph
// (nothing runs). Memsets and copies are not kernels and are not listed.
inline std::vector<const void *> launched_kernels(const std::function<tc_status(cudaStream_t)> &launch) {
    std::vector<const void *> kernels;
    cudaStream_t s;
    EXPECT_EQ(cudaSuccess, cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    EXPECT_EQ(cudaSuccess, cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
    const tc_status st = launch(s);
    cudaGraph_t graph = nullptr;
    EXPECT_EQ(cudaSuccess, cudaStreamEndCapture(s, &graph));
    EXPECT_EQ(TC_OK, st) << tc_status_name(st);
    size_t count = 0;
    if (graph && cudaGraphGetNodes(graph, nullptr, &count) == cudaSuccess && count > 0) {
        std::vector<cudaGraphNode_t> nodes(count);
        EXPECT_EQ(cudaSuccess, cudaGraphGetNodes(graph, nodes.data(), &count));
        for (cudaGraphNode_t node : nodes) {
            cudaGraphNodeType type;
            EXPECT_EQ(cudaSuccess, cudaGraphNodeGetType(node, &type));
            if (type != cudaGraphNodeTypeKernel) continue;
            cudaKernelNodeParams params{};
            EXPECT_EQ(cudaSuccess, cudaGraphKernelNodeGetParams(node, &params));
            kernels.push_back(params.func);
        }
    }
    if (graph) cudaGraphDestroy(graph);
    cudaStreamDestroy(s);
    return kernels;
}

// A plan's launch count is the number of kernels its run launches, and every one of them is in
// its variant's kernel list (library baselines list none and count none).
inline void expect_launches_as_planned(const tc_program *program, const tc_launch &plan,
                                       const std::function<tc_status(cudaStream_t)> &launch, const std::string &what) {
    const tc_variant *v = tc_variant_at(program, plan.variant);
    ASSERT_NE(v, nullptr);
    const std::vector<const void *> kernels = launched_kernels(launch);
    if (v->flags & TC_LIBRARY) {
        EXPECT_EQ(plan.launches, 0) << what;
        EXPECT_GT(kernels.size(), 0u) << what;
        return;
    }
    EXPECT_EQ(int64_t(kernels.size()), int64_t(plan.launches)) << what << ": the plan's launch count";
    for (const void *f : kernels) {
        bool listed = false;
        for (int k = 0; k < v->kernel_count; ++k) listed = listed || v->kernels[k].function == f;
        EXPECT_TRUE(listed) << what << ": a launched kernel is not in " << v->name << "'s kernel list";
    }
}

inline std::vector<int64_t> sizes() { return up_to_max_n({1, 31, 32, 33, 1023, 1024, 1025, 65537, (1 << 20) + 3}); }
const int kThreads[] = {32, 96, 256, 1024};

}  // namespace tctest
