// The benchmarks' timing (apart from the product's): CK for runtime calls, and time_us,
// the median of reps runs of f, each timed with events behind a device-side delay of about 50 us
// (so the events time the kernels, not the host's launch), after `warm` untimed runs.
#pragma once
#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <vector>

#define CK(x)                                                               \
    do {                                                                    \
        cudaError_t e_ = (x);                                               \
        if (e_ != cudaSuccess) {                                            \
            printf("%s: %s\n", #x, cudaGetErrorString(e_));                 \
            exit(1);                                                        \
        }                                                                   \
    } while (0)

// The device's clock in nanoseconds (the same on every SM, unlike clock64), for waits measured in time.
__device__ __forceinline__ unsigned long long globaltimer_ns() {
    unsigned long long ns;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
    return ns;
}

__global__ void experiment_spin(long long cycles) {
    const long long t0 = clock64();
    while (clock64() - t0 < cycles) {}
}

template <typename F>
float time_us(F f, int reps = 30, int warm = 5) {
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    std::vector<float> t;
    for (int i = 0; i < warm + reps; ++i) {
        experiment_spin<<<1, 1>>>(100000);
        CK(cudaEventRecord(a));
        f();
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        if (i >= warm) t.push_back(ms * 1000);
    }
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

// One 8-bit image kernel against a reference: poisons out, times launch (time_us), checks its
// output byte for byte against want and prints one line: name, time, GB/s (reading and writing
// want.size() bytes each), and how many pixels differ.
template <typename F>
void time_and_check(const char *name, F launch, uint8_t *out, const std::vector<uint8_t> &want) {
    const size_t n = want.size();
    CK(cudaMemset(out, 0xAB, n));
    const float us = time_us(launch);
    CK(cudaGetLastError());
    std::vector<uint8_t> got(n);
    CK(cudaMemcpy(got.data(), out, n, cudaMemcpyDeviceToHost));
    size_t diff = 0;
    for (size_t i = 0; i < n; ++i) diff += got[i] != want[i];
    printf("%-40s %7.2f us (%.0f GB/s)  %s (%zu pixels differ from the reference)\n", name, us, 2.0 * n / us / 1e3,
           diff ? "DIFFERS" : "same", diff);
}
