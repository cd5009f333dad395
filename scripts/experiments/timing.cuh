// The scratch experiments' timing (not part of the product): CK for runtime calls, and time_us,
// the median of reps runs of f, each timed with events behind a device-side delay of about 50 us
// (so the events time the kernels, not the host's launch), after `warm` untimed runs.
#pragma once
#include <algorithm>
#include <cstdio>
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
